//! The replay's report in words, rendered from its JSON summary: calls by decision per
//! tool and session, every deny and ask with its rule and examples, what the
//! transcripts record next to the policy now, and the holds. Names and paths a
//! transcript chose are written escaped ([`crate::text::escape`]).

use crate::text::{escape, fit, truncate};
use serde_json::Value;

/// The most terminal columns of a working folder shown.
const CWD_COLUMNS: usize = 200;

fn count(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn str_of<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or_default()
}

/// The width of the first column of tables.
const NAME: usize = 48;

fn row(name: &str, calls: u64, t: &Value) -> String {
    format!(
        "  {} {:>6} {:>6} {:>6} {:>6}\n",
        fit(name, NAME),
        calls,
        count(t, "allow"),
        count(t, "ask"),
        count(t, "deny")
    )
}

fn example_line(e: &Value) -> String {
    format!(
        "{}:{} {}",
        escape(str_of(e, "file")),
        count(e, "line"),
        str_of(e, "call")
    )
}

/// The human report, from the summary.
pub(super) fn render(s: &Value) -> String {
    let mut o = String::new();
    let empty = Vec::new();
    let list = |k: &str| s.get(k).and_then(Value::as_array).unwrap_or(&empty);
    let files = list("transcripts");
    let sessions = list("sessions");
    let bad = s.get("bad_lines").unwrap_or(&Value::Null);
    o.push_str(&format!(
        "replay: {} tool calls in {} session(s) from {} transcript(s); {} bad line(s)\n",
        count(s, "calls"),
        sessions.len(),
        files.len(),
        count(bad, "count")
    ));
    let policy_line = |p: &Value| match p.get("error").and_then(Value::as_str) {
        Some(e) => format!(
            "{} NOT READABLE: {}; {}",
            escape(str_of(p, "managed")),
            escape(e),
            str_of(p, "in_force")
        ),
        None => format!(
            "{} ({} permission rules)",
            escape(str_of(p, "managed")),
            count(p, "rules")
        ),
    };
    let warnings = |o: &mut String, p: &Value| {
        let list = p
            .get("warnings")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if list.is_empty() {
            return;
        }
        o.push_str(&format!(
            "  {} warning(s) reading it (as `policy show` gives them):\n",
            list.len()
        ));
        for w in list {
            let at = w
                .get("line")
                .and_then(Value::as_u64)
                .map_or_else(String::new, |l| format!(":{l}"));
            o.push_str(&format!(
                "    {}{at} {}: {}\n",
                escape(str_of(w, "file")),
                escape(str_of(w, "pointer")),
                escape(str_of(w, "reason"))
            ));
        }
    };
    if let Some(p) = s.get("policy") {
        o.push_str(&format!("policy: {}\n", policy_line(p)));
        warnings(&mut o, p);
    }
    let person = list("person_plugins");
    if person.is_empty() {
        o.push_str("person's plugins: none\n");
    } else {
        let ids: Vec<String> = person
            .iter()
            .filter_map(Value::as_str)
            .map(escape)
            .collect();
        o.push_str(&format!("person's plugins: {}\n", ids.join(", ")));
    }

    o.push_str(&format!(
        "\nBy tool\n  {:<NAME$} {:>6} {:>6} {:>6} {:>6}\n",
        "tool", "calls", "allow", "ask", "deny"
    ));
    if let Some(Value::Object(tools)) = s.get("by_tool") {
        for (t, c) in tools {
            o.push_str(&row(
                &escape(t),
                count(c, "allow") + count(c, "ask") + count(c, "deny"),
                c,
            ));
        }
    }
    o.push_str(&row(
        "all",
        count(s, "calls"),
        s.get("by_decision").unwrap_or(&Value::Null),
    ));

    o.push_str("\nSessions\n");
    for r in sessions {
        let t = r.get("by_decision").unwrap_or(&Value::Null);
        let cwd = match r
            .get("cwd")
            .and_then(Value::as_str)
            .map(|c| escape(&truncate(c, CWD_COLUMNS)))
        {
            Some(c) if r.get("cwd_here") == Some(&Value::Bool(true)) => c,
            Some(c) => format!("{c} (not on this machine: its paths are uncertain)"),
            None => "(none recorded)".to_owned(),
        };
        o.push_str(&format!(
            "  {}  {}\n    cwd {}; mode {}; {} calls: {} allow, {} ask, {} deny\n",
            escape(str_of(r, "session")),
            escape(str_of(r, "file")),
            cwd,
            r.get("mode")
                .and_then(Value::as_str)
                .map_or_else(|| "(none recorded)".to_owned(), escape),
            count(r, "calls"),
            count(t, "allow"),
            count(t, "ask"),
            count(t, "deny"),
        ));
    }

    let rules = list("denies_and_asks");
    o.push_str("\nDenies and asks, by what decided them\n");
    if rules.is_empty() && count(s, "calls") > 0 {
        o.push_str("  none: every call is allowed\n");
    } else if rules.is_empty() {
        o.push_str("  none: no call was replayed\n");
    }
    for r in rules {
        o.push_str(&format!(
            "  {:<5} {} calls  {}\n",
            str_of(r, "decision"),
            count(r, "calls"),
            str_of(r, "decided_by")
        ));
        for e in r
            .get("examples")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
        {
            o.push_str(&format!("          e.g. {}\n", example_line(e)));
        }
    }

    o.push_str(&format!(
        "\nWhat the transcript records, next to the policy now\n  {:<NAME$} {:>6} {:>6} {:>6} {:>6}\n",
        "transcript", "calls", "allow", "ask", "deny"
    ));
    if let Some(Value::Object(seen)) = s.get("transcript_vs_now") {
        for (k, t) in seen {
            let label = match k.as_str() {
                "ran" => "ran (approved, or nothing asked)",
                "failed" => "ran and failed",
                "rejected" => "rejected by the person",
                "interrupted" => "interrupted by the person",
                _ => "no result in the transcript",
            };
            o.push_str(&row(
                label,
                count(t, "allow") + count(t, "ask") + count(t, "deny"),
                t,
            ));
        }
    }
    let listed = |o: &mut String, key: &str, title: &str| {
        let g = s.get(key).unwrap_or(&Value::Null);
        if count(g, "calls") == 0 {
            return;
        }
        o.push_str(&format!("  {title} ({} calls):\n", count(g, "calls")));
        for e in g.get("listed").and_then(Value::as_array).unwrap_or(&empty) {
            let extra = match e.get("rewritten_by").and_then(Value::as_array) {
                Some(by) if !by.is_empty() => {
                    let names: Vec<String> =
                        by.iter().filter_map(Value::as_str).map(escape).collect();
                    format!("; rewritten by {}", names.join(", "))
                }
                _ => String::new(),
            };
            o.push_str(&format!(
                "    {} -> now {} ({}){extra}\n",
                example_line(e),
                str_of(e, "decision"),
                str_of(e, "decided_by")
            ));
        }
    };
    listed(
        &mut o,
        "rejected_in_transcript",
        "Rejected or interrupted in the transcript",
    );
    listed(
        &mut o,
        "ran_but_denied_now",
        "Ran in the transcript, denied by the policy now",
    );
    o.push('\n');
    let held = s.get("held_over_person_plugin").unwrap_or(&Value::Null);
    if person.is_empty() {
        o.push_str("Held over a person's plugin: no person's plugin seated (give --plugin-dir or --settings)\n");
    } else {
        o.push_str(&format!(
            "Held over a person's plugin: {} calls\n",
            count(held, "calls")
        ));
        listed(&mut o, "held_over_person_plugin", "Held");
    }

    if let Some(a) = s.get("against").filter(|a| !a.is_null()) {
        let p = a.get("policy").unwrap_or(&Value::Null);
        o.push_str(&format!(
            "\nBacktest against {}: {} of {} calls differ\n",
            policy_line(p),
            count(a, "differ"),
            count(s, "calls")
        ));
        warnings(&mut o, p);
        let groups = |o: &mut String, list: &Value| {
            for c in list.as_array().unwrap_or(&empty) {
                let (from, to) = (str_of(c, "from"), str_of(c, "to"));
                let how = if from == to {
                    format!("{from}, as before")
                } else {
                    format!("{from} -> {to}")
                };
                o.push_str(&format!(
                    "  {how}  {} calls  now {}\n",
                    count(c, "calls"),
                    str_of(c, "decided_by")
                ));
                for e in c
                    .get("examples")
                    .and_then(Value::as_array)
                    .unwrap_or(&empty)
                {
                    o.push_str(&format!(
                        "          e.g. {} (was {})\n",
                        example_line(e),
                        str_of(e, "was_decided_by")
                    ));
                }
            }
        };
        groups(&mut o, a.get("changes").unwrap_or(&Value::Null));
        let otherwise = a.get("decided_otherwise").unwrap_or(&Value::Null);
        if count(otherwise, "calls") > 0 {
            o.push_str(&format!(
                "  {} more calls keep their decision, decided by another rule or reason:\n",
                count(otherwise, "calls")
            ));
            groups(&mut o, otherwise.get("changes").unwrap_or(&Value::Null));
        }
    }

    if count(bad, "count") > 0 {
        o.push_str(&format!(
            "\nBad lines ({}; the replay went on)\n",
            count(bad, "count")
        ));
        for b in bad
            .get("listed")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
        {
            o.push_str(&format!(
                "  {}:{}: {}\n",
                escape(str_of(b, "file")),
                count(b, "line"),
                escape(str_of(b, "reason"))
            ));
        }
    }
    let unknown = list("not_transcripts");
    if !unknown.is_empty() {
        o.push_str("\nNot transcripts (exit 2)\n");
        for u in unknown {
            o.push_str(&format!(
                "  {}: {}\n",
                escape(str_of(u, "file")),
                escape(str_of(u, "reason"))
            ));
        }
    }
    let notes = list("notes");
    if !notes.is_empty() {
        o.push_str("\nNotes\n");
        for n in notes {
            o.push_str(&format!("  {}\n", escape(n.as_str().unwrap_or_default())));
        }
    }
    o
}
