//! `tool.list` — the organization's tools as the organization's tiers listed them
//! (SPEC §3.5).
//!
//! Org tools are told **by the name whole** for managed servers (the prefix
//! `mcp__<server>__` as the engine spells it, no folding: `corp` does not claim
//! `mcp__corporate__x`) and **fold to fold** for seated plugins (`mcp__plugin_<name>_`
//! for their own servers and `mcp__<name>__` for the tools they register at run time,
//! NFC and NFD of the name). Where `managedMcpServersUnreadable`, every `mcp__` tool is
//! the organization's.

use crate::fold::reads_as;
use crate::policy::{self, org_plugins};
use events::spell;
use fnhooks::{Answer, Cx, Event, HookResult, Next, Tier};
use serde_json::{Map, Value};

use ::policy::ManagedSettings;

/// Whether the tool `name` is the organization's (SPEC §3.5).
///
/// Takes the policy read and a tool's name; returns `true` for a tool of a managed
/// server (name whole), of a seated plugin or its own servers (fold to fold), or any
/// `mcp__` tool while the managed server file cannot be read.
///
/// SPEC §3.5
#[must_use]
pub fn is_org_tool(policy: &ManagedSettings, name: &str) -> bool {
    if policy.managed_mcp_servers_unreadable && name.starts_with("mcp__") {
        return true;
    }
    if org_servers(policy).any(|s| name.starts_with(&format!("mcp__{}__", spell(s)))) {
        return true;
    }
    org_plugins(policy).iter().any(|p| {
        p.name_forms().iter().any(|n| {
            reads_as(name, &format!("mcp__plugin_{n}_")) || reads_as(name, &format!("mcp__{n}__"))
        })
    })
}

/// The organization's servers at `tool.list` (SPEC §3.5 **\[decision\]**): those of
/// `managedMcpServers` (with `managed-mcp.json`'s) and every server that managed
/// `allowedMcpServers` names by `serverName`.
fn org_servers(policy: &ManagedSettings) -> impl Iterator<Item = &str> {
    let allowed = policy
        .allowed_mcp_servers
        .iter()
        .flatten()
        .filter_map(|entry| entry.get("serverName").and_then(Value::as_str));
    policy
        .managed_mcp_servers
        .iter()
        .map(String::as_str)
        .chain(allowed)
}

/// The object and its `tools` array, when `answer` is a listing.
fn listing(answer: &Answer) -> Option<(&Map<String, Value>, &Vec<Value>)> {
    let obj = answer.as_ref().ok()?.as_object()?;
    let tools = obj.get("tools")?.as_array()?;
    Some((obj, tools))
}

fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("name").and_then(Value::as_str)
}

/// The listing to give the model (SPEC §3.5): the chain's listing, with every org tool
/// as the org listing has it.
///
/// Takes the policy read (`None` when it failed), the org listing (`next.to(e,
/// append)`) and the chain listing (`next(e)`). With no policy, or when either listing
/// is an error or not a listing (`{tools: [...]}`), returns the org listing whole.
/// Otherwise returns the chain listing's other fields, with a `tools` list in which
/// **\[decision, revised\]** each org tool stands at the index it has in the org
/// listing, as the org listing has it, and the other indices are filled with the chain
/// listing's non-org tools in the chain's order (then any left over, at the end): an
/// org tool the chain dropped is back in its own place; an org tool the chain added
/// that the org listing lacks is removed.
///
/// # Errors
///
/// The org listing's own error, when it is the listing that stands whole (no policy, or
/// a refusal); never an error of the chain listing.
///
/// SPEC §3.5
pub fn managed_tools_restored(
    policy: Option<&ManagedSettings>,
    org: &Answer,
    chain: &Answer,
) -> Answer {
    let (Some(policy), Some((_, org_tools)), Some((chain_obj, chain_tools))) =
        (policy, listing(org), listing(chain))
    else {
        return org.clone();
    };

    // The org's own tools with their org-listing indices, first entry per name.
    let mut org_own: Vec<(usize, &str, &Value)> = Vec::new();
    for (at, tool) in org_tools.iter().enumerate() {
        if let Some(name) = tool_name(tool).filter(|n| is_org_tool(policy, n)) {
            if !org_own.iter().any(|(_, n, _)| *n == name) {
                org_own.push((at, name, tool));
            }
        }
    }
    // Every other tool as the chain left it, in the chain's order (an org tool the chain
    // added or reworded is not among them).
    let mut others = chain_tools
        .iter()
        .filter(|t| !tool_name(t).is_some_and(|n| is_org_tool(policy, n)));
    let mut out: Vec<Value> = Vec::with_capacity(chain_tools.len() + org_own.len());
    for (at, _, own) in &org_own {
        while out.len() < *at {
            let Some(other) = others.next() else { break };
            out.push(other.clone());
        }
        out.push((*own).clone());
    }
    out.extend(others.cloned());

    let mut restored = chain_obj.clone();
    restored.insert("tools".to_owned(), Value::Array(out));
    Ok(Value::Object(restored).into())
}

/// The `tool.list` hook: the org listing (`next.to(e, append)`) and the chain listing
/// (`next(e)`) restored by [`managed_tools_restored`].
///
/// Takes the hook's `cx`, the event and `next`; returns `{tools: [...]}`.
///
/// # Errors
///
/// The org listing's own error, returned whole (then the chain listing is not asked).
///
/// SPEC §3.5
pub async fn tool_list(cx: Cx, e: Event, next: Next) -> HookResult {
    let policy = policy::read(&cx).await.ok();
    let org = next.to(e.clone(), Tier::Append).await;
    if let Err(refusal) = org {
        return Err(refusal.into());
    }
    let chain = next.run(e).await;
    Ok(managed_tools_restored(policy.as_deref(), &org, &chain)?)
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;
    use fnhooks::{ChainError, FailureKind};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn p(v: Value) -> ManagedSettings {
        ManagedSettings::from_value(&v)
    }

    fn list(names: &[(&str, &str)]) -> Answer {
        Ok(
            json!({"tools": names.iter().map(|(n, d)| json!({"name": n, "description": d})).collect::<Vec<_>>()}).into(),
        )
    }

    fn names(a: &Answer) -> Vec<(String, String)> {
        a.as_ref().unwrap()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_owned(),
                    t["description"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn servers_are_told_by_the_name_whole() {
        let pol = p(json!({"managedMcpServers": ["corp"]}));
        assert!(is_org_tool(&pol, "mcp__corp__x"));
        assert!(!is_org_tool(&pol, "mcp__corporate__x"));
        assert!(
            !is_org_tool(&pol, "mcp__Corp__x"),
            "no lower-casing for servers"
        );
        let pol = p(json!({"managedMcpServers": ["corp tools"]}));
        assert!(
            is_org_tool(&pol, "mcp__corp_tools__x"),
            "spelled as the engine spells it"
        );
    }

    #[test]
    fn plugins_are_told_fold_to_fold() {
        let pol =
            p(json!({"prependPlugins": ["Audit@corp"], "enabledPlugins": {"lint@corp": ["2"]}}));
        assert!(is_org_tool(&pol, "mcp__plugin_audit_srv__x"));
        assert!(is_org_tool(&pol, "mcp__plugin_audit-srv__x"));
        assert!(is_org_tool(&pol, "mcp__audit__x"));
        assert!(is_org_tool(&pol, "mcp__plugin_lint_s__x"));
        assert!(!is_org_tool(&pol, "mcp__plugin_auditor_s__x"));
        assert!(!is_org_tool(&pol, "Read"));
    }

    #[test]
    fn an_unreadable_server_file_makes_every_mcp_tool_the_orgs() {
        let pol = p(json!({"managedMcpServersUnreadable": true}));
        assert!(is_org_tool(&pol, "mcp__anything__x"));
        assert!(!is_org_tool(&pol, "Read"));
    }

    #[test]
    fn org_tools_as_the_org_listed_them_in_the_chains_order() {
        let pol = p(json!({"managedMcpServers": ["corp"]}));
        let org = list(&[
            ("Read", "r"),
            ("mcp__corp__a", "A"),
            ("mcp__corp__b", "B"),
            ("mcp__corp__c", "C"),
            ("Write", "w"),
        ]);
        // the chain reworded a, dropped b, added an org-looking d, reordered, and added its
        // own tool: every org tool stands at its org-listing index
        let chain = list(&[
            ("Write", "w2"),
            ("mcp__corp__a", "evil"),
            ("mine", "m"),
            ("mcp__corp__d", "fake"),
            ("mcp__corp__c", "C"),
            ("Read", "r"),
        ]);
        let out = managed_tools_restored(Some(&pol), &org, &chain);
        assert_eq!(
            names(&out),
            pairs(&[
                ("Write", "w2"),
                ("mcp__corp__a", "A"),
                ("mcp__corp__b", "B"),
                ("mcp__corp__c", "C"),
                ("mine", "m"),
                ("Read", "r")
            ])
        );
        // every org tool dropped: back in its own place, not at the end
        let out = managed_tools_restored(Some(&pol), &org, &list(&[("Read", "r")]));
        assert_eq!(
            names(&out),
            pairs(&[
                ("Read", "r"),
                ("mcp__corp__a", "A"),
                ("mcp__corp__b", "B"),
                ("mcp__corp__c", "C")
            ])
        );
        // an org tool dropped from the front comes back at index 0
        let org = list(&[("mcp__corp__a", "A"), ("Read", "r"), ("Write", "w")]);
        let chain = list(&[("Write", "w"), ("Read", "r"), ("mine", "m")]);
        let out = managed_tools_restored(Some(&pol), &org, &chain);
        assert_eq!(
            names(&out),
            pairs(&[
                ("mcp__corp__a", "A"),
                ("Write", "w"),
                ("Read", "r"),
                ("mine", "m")
            ])
        );
    }

    #[test]
    fn servers_the_allowlist_names_are_the_orgs() {
        let pol =
            p(json!({"allowedMcpServers": [{"serverName": "github"}, {"serverUrl": "https://x"}]}));
        assert!(is_org_tool(&pol, "mcp__github__create_issue"));
        assert!(!is_org_tool(&pol, "mcp__githubx__y"));
        let org = list(&[("mcp__github__a", "A"), ("Read", "r")]);
        let chain = list(&[("Read", "r"), ("mcp__github__a", "evil")]);
        let out = managed_tools_restored(Some(&pol), &org, &chain);
        assert_eq!(
            names(&out),
            pairs(&[("mcp__github__a", "A"), ("Read", "r")])
        );
    }

    #[test]
    fn no_policy_or_a_refusal_leaves_the_org_listing_whole() {
        let pol = p(json!({"managedMcpServers": ["corp"]}));
        let org = list(&[("Read", "r"), ("mcp__corp__a", "A")]);
        let chain = list(&[("Read", "mine")]);
        assert_eq!(managed_tools_restored(None, &org, &chain), org);
        let err: Answer = Err(ChainError::new(FailureKind::Error, "x"));
        assert_eq!(managed_tools_restored(Some(&pol), &org, &err), org);
        assert_eq!(
            managed_tools_restored(Some(&pol), &org, &Ok(json!({"text": "no"}).into())),
            org
        );
        assert_eq!(managed_tools_restored(Some(&pol), &err, &chain), err);
    }

    #[test]
    fn without_org_tools_the_chain_listing_stands() {
        let pol = p(json!({}));
        let org = list(&[("Read", "r")]);
        let chain = list(&[("Read", "mine"), ("mcp__x__y", "y")]);
        assert_eq!(managed_tools_restored(Some(&pol), &org, &chain), chain);
    }
}
