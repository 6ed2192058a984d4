#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::*;
use crate::refusals::RegisterWhy;
use crate::state::Admitted;
use fnhooks::CopySource;
use policy::ManagedSettings;
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{json, Value};

fn p(v: Value) -> ManagedSettings {
    ManagedSettings::from_value(&v)
}

/// What admission heard of a copy read in place from a `directory` marketplace.
fn dir(id: &str) -> Admitted {
    Admitted {
        provenance: id.to_owned(),
        source: Some(CopySource::Directory),
    }
}

fn why(policy: &Value, plugin: &str, tool: &str, recorded: Option<&str>) -> Option<RegisterWhy> {
    why_refused(&p(policy.clone()), plugin, tool, recorded.map(dir).as_ref())
}

fn why_from(policy: &Value, heard: &Admitted) -> Option<RegisterWhy> {
    why_refused(&p(policy.clone()), "audit", "x", Some(heard))
}

#[test]
fn only_a_copy_read_in_place_from_a_directory_marketplace_is_vouched_for() {
    let on = json!({"enabledPlugins": {"audit@corp-local": true}});
    assert_eq!(why_from(&on, &dir("audit@corp-local")), None);
    for source in [
        Some(CopySource::Github),
        Some(CopySource::Git),
        Some(CopySource::Npm),
        Some(CopySource::Cached),
        Some(CopySource::Inline),
        None,
    ] {
        let heard = Admitted {
            provenance: "audit@corp-local".to_owned(),
            source,
        };
        assert_eq!(
            why_from(&on, &heard),
            Some(RegisterWhy::OrgPlugin("audit".into(), "enabledPlugins")),
            "{source:?}"
        );
    }
}

#[test]
fn an_inline_id_is_never_vouched_for_even_where_enabled_plugins_lists_it() {
    for listed in ["audit@inline", "audit@INLINE", "audit@Inline"] {
        let on = json!({ "enabledPlugins": { listed: true } });
        for heard in ["audit@inline", "audit@INLINE", "Audit@Inline"] {
            assert_eq!(
                why_from(&on, &dir(heard)),
                Some(RegisterWhy::OrgPlugin("audit".into(), "enabledPlugins")),
                "{listed} / {heard}"
            );
        }
    }
}

#[test]
fn an_empty_policy_refuses_nothing() {
    assert_eq!(
        register_refusal_of(&p(json!({})), "notes", "add", None),
        None
    );
}

#[test]
fn step_2_unreadable_server_file_refuses_everything() {
    let pol = json!({"managedMcpServersUnreadable": true});
    assert_eq!(
        register_refusal_of(&p(pol), "notes", "add", None).unwrap(),
        "notes may not register mcp__notes__add: the organization's managed-mcp.json cannot be read (managedMcpServersUnreadable)"
    );
}

#[test]
fn step_3_an_allowlist_even_empty_refuses_everything() {
    assert_eq!(
        why(&json!({"allowedMcpServers": []}), "notes", "add", None),
        Some(RegisterWhy::Allowlist)
    );
    assert_eq!(
        why(
            &json!({"allowedMcpServers": [{"serverName": "notes"}]}),
            "notes",
            "add",
            None
        ),
        Some(RegisterWhy::Allowlist)
    );
}

#[test]
fn step_4_server_scopes_fold() {
    let pol = json!({"managedMcpServers": {"corp-tools": {}}});
    let server = Some(RegisterWhy::OrgServer("corp-tools".into()));
    assert_eq!(why(&pol, "Corp_Tools", "x", None), server);
    assert_eq!(
        why(&pol, "corp", "tools__x", None),
        server,
        "plugin and tool spell the server"
    );
    assert_eq!(
        why(&pol, "corp-tools", "@@", None),
        server,
        "a tool whose name folds to nothing"
    );
    assert_eq!(why(&pol, "CORP TOOLS", "x", None), server);
    assert_eq!(why(&pol, "corporate", "x", None), None);
    assert_eq!(
        register_refusal_of(&p(pol), "corp", "tools__x", None).unwrap(),
        "corp may not register mcp__corp__tools__x: its name reads as the organization's MCP server \"corp-tools\" (managedMcpServers)"
    );
}

#[test]
fn step_4_plugin_scopes_for_each_key_nfc_and_nfd() {
    for key in ["prependPlugins", "appendPlugins"] {
        let pol = json!({ key: ["audit@corp"] });
        assert_eq!(
            why(&pol, "Audit", "x", None),
            Some(RegisterWhy::OrgPlugin(
                "audit".into(),
                if key == "prependPlugins" {
                    "prependPlugins"
                } else {
                    "appendPlugins"
                }
            ))
        );
        assert_eq!(
            why(&pol, "plugin", "audit_srv__x", None),
            Some(RegisterWhy::OrgPluginServer(
                "audit".into(),
                if key == "prependPlugins" {
                    "prependPlugins"
                } else {
                    "appendPlugins"
                }
            )),
            "mcp__plugin_<name>_ reserves every server of the plugin"
        );
    }
    let pol = json!({"enabledPlugins": {"audit@corp": ["1.0"], "off@corp": false}});
    assert_eq!(
        why(&pol, "audit", "x", None),
        Some(RegisterWhy::OrgPlugin("audit".into(), "enabledPlugins"))
    );
    assert_eq!(
        why(&pol, "off", "x", None),
        None,
        "an id turned off reserves nothing"
    );
    // the decomposed form is reserved too: a person's plugin spelled from the NFD name
    let pol = json!({"prependPlugins": ["caf\u{e9}@corp"]});
    assert_eq!(
        why(&pol, "cafe\u{301}", "x", None),
        Some(RegisterWhy::OrgPlugin("caf\u{e9}".into(), "prependPlugins"))
    );
    assert_eq!(
        why(&pol, "caf\u{e9}", "x", None),
        Some(RegisterWhy::OrgPlugin("caf\u{e9}".into(), "prependPlugins"))
    );
    // a scoped id's name is everything before the last @
    let pol = json!({"appendPlugins": ["@scope/name@npm"]});
    assert_eq!(
        why(&pol, "_scope_name", "x", None),
        Some(RegisterWhy::OrgPlugin(
            "@scope/name".into(),
            "appendPlugins"
        ))
    );
}

#[test]
fn step_5_a_reserved_name_that_folds_to_nothing_refuses_everything() {
    assert_eq!(
        why(&json!({"managedMcpServers": ["--"]}), "anything", "x", None),
        Some(RegisterWhy::NamelessReserved)
    );
    assert_eq!(
        why(
            &json!({"enabledPlugins": {"\u{e9}@m": true}}),
            "anything",
            "x",
            Some("\u{e9}@m")
        ),
        Some(RegisterWhy::NamelessReserved),
        "the exemption does not lift step 5"
    );
}

#[test]
fn the_exemption_is_keyed_by_the_recorded_id_turned_on_by_true() {
    let on = json!({"enabledPlugins": {"audit@corp-local": true}});
    // true vouches for the recorded id, NFC then lower case
    assert_eq!(why(&on, "audit", "x", Some("audit@corp-local")), None);
    assert_eq!(why(&on, "audit", "x", Some("Audit@Corp-Local")), None);
    assert_eq!(
        why(&on, "audit", "x", None),
        Some(RegisterWhy::OrgPlugin("audit".into(), "enabledPlugins"))
    );
    // a version list never vouches
    let versions = json!({"enabledPlugins": {"audit@corp-local": ["1.0"]}});
    assert!(why(&versions, "audit", "x", Some("audit@corp-local")).is_some());
    // --plugin-dir (inline) and another marketplace never match
    assert!(why(&on, "audit", "x", Some("audit@inline")).is_some());
    assert!(why(&on, "audit", "x", Some("audit@elsewhere")).is_some());
    // a name that merely folds to the org's
    assert!(why(&on, "Audit-", "x", Some("Audit-@corp-local")).is_some());
    // only in prependPlugins/appendPlugins: no exemption
    for key in ["prependPlugins", "appendPlugins"] {
        let listed = json!({ key: ["audit@corp-local"] });
        assert!(
            why(&listed, "audit", "x", Some("audit@corp-local")).is_some(),
            "{key}"
        );
    }
    // the exemption lifts only the plugin's own scopes: servers and allowlists still refuse
    let with_server =
        json!({"enabledPlugins": {"audit@corp-local": true}, "managedMcpServers": ["audit"]});
    assert_eq!(
        why(&with_server, "audit", "x", Some("audit@corp-local")),
        Some(RegisterWhy::OrgServer("audit".into()))
    );
    let with_list = json!({"enabledPlugins": {"audit@corp-local": true}, "allowedMcpServers": []});
    assert_eq!(
        why(&with_list, "audit", "x", Some("audit@corp-local")),
        Some(RegisterWhy::Allowlist)
    );
    // and another org plugin's scope still refuses
    let two =
        json!({"enabledPlugins": {"audit@corp-local": true}, "appendPlugins": ["audit-x@corp"]});
    assert_eq!(
        why(&two, "audit", "x__y", Some("audit@corp-local")),
        Some(RegisterWhy::OrgPlugin("audit-x".into(), "appendPlugins"))
    );
}

proptest! {
    /// SPEC §5.3: no registration whose folded name reads as an org server's scope is
    /// accepted, for any Unicode input.
    #[test]
    fn nothing_that_reads_as_the_server_is_accepted(plugin in any::<String>(), tool in any::<String>()) {
        let pol = p(json!({"managedMcpServers": ["corp-tools"], "prependPlugins": ["audit@corp"]}));
        let full = events::registered_tool_name(&plugin, &tool);
        let reads = crate::fold::reads_as(&full, "mcp__corp-tools__")
            || crate::fold::reads_as(&full, "mcp__audit__")
            || crate::fold::reads_as(&full, "mcp__plugin_audit_");
        if reads {
            prop_assert!(register_refusal_of(&pol, &plugin, &tool, None).is_some());
        }
    }
}
