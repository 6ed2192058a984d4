//! `check`'s explanation in words, one line per fact; what settings files, plugins and
//! calls hold written escaped ([`crate::text::escape`], SPEC §3.6.1).

use serde_json::Value;

/// The value at `path` (object keys) in `v`, or `null`.
fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    static NULL: Value = Value::Null;
    path.iter().try_fold(v, |v, k| v.get(*k)).unwrap_or(&NULL)
}

/// The explanation in words.
pub(super) fn render(r: &Value) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    // What settings files, plugins and calls hold is written as one line each, with
    // controls, bidirectional overrides and zero-width characters shown escaped as every
    // report escapes them: a rule that only looks like another must not read as it
    // (SPEC §3.6.1).
    let s = |v: &Value| crate::text::escape(v.as_str().unwrap_or_default());
    let verdict = &at(r, &["verdict"]);
    if let Some(e) = r.get("error") {
        line(format!("cannot read the call: {}", s(at(e, &["reason"]))));
        line(format!("verdict: ask ({})", s(at(verdict, &["reason"]))));
        return out;
    }
    line(format!(
        "{} {}",
        s(at(r, &["call", "tool"])),
        at(r, &["call", "input"])
    ));
    line(format!(
        "verdict: {}{}",
        s(at(verdict, &["decision"])),
        verdict
            .get("reason")
            .and_then(Value::as_str)
            .map(|x| format!(" ({x})"))
            .unwrap_or_default()
    ));
    let place = |m: &Value| {
        let line_no = at(m, &["line"])
            .as_u64()
            .map(|l| format!(":{l}"))
            .unwrap_or_default();
        format!(
            "{}{} {}",
            s(at(m, &["file"])),
            line_no,
            s(at(m, &["pointer"]))
        )
    };
    match r.get("decided_by").filter(|d| !d.is_null()) {
        Some(d) => line(format!(
            "decided by: {} {} ({} settings) at {}{}",
            s(at(d, &["behavior"])),
            s(at(d, &["rule"])),
            s(at(d, &["source"])),
            place(d),
            if at(d, &["uncertain"]) == true {
                ", uncertain"
            } else {
                ""
            }
        )),
        None => line("decided by: no rule (the mode's default, a setting or a hook)".to_owned()),
    }
    let matched = at(r, &["matched"]).as_array().cloned().unwrap_or_default();
    line(format!("rules that meet this call: {}", matched.len()));
    for stage in ["deny", "ask", "allow"] {
        for m in matched.iter().filter(|m| at(m, &["behavior"]) == stage) {
            line(format!(
                "  {stage:<5} {} ({}) at {}{}",
                s(at(m, &["rule"])),
                s(at(m, &["source"])),
                place(m),
                if at(m, &["uncertain"]) == true {
                    ", uncertain"
                } else {
                    ""
                }
            ));
        }
    }
    if let Some(parts) = at(r, &["shell_parts"]).as_array().filter(|p| !p.is_empty()) {
        line("shell command parts:".to_owned());
        for p in parts {
            let met: Vec<String> = at(p, &["meets"])
                .as_array()
                .map(|m| {
                    m.iter()
                        .map(|x| format!("{} {}", s(at(x, &["behavior"])), s(at(x, &["rule"]))))
                        .collect()
                })
                .unwrap_or_default();
            line(format!(
                "  {}{}: {}",
                s(at(p, &["part"])),
                if at(p, &["uncertain"]) == true {
                    " (uncertain)"
                } else {
                    ""
                },
                if met.is_empty() {
                    "meets no rule".to_owned()
                } else {
                    format!("meets {}", met.join(", "))
                }
            ));
        }
    }
    let hooks = at(r, &["classic_hooks", "hooks"])
        .as_array()
        .cloned()
        .unwrap_or_default();
    if hooks.is_empty() {
        line("classic hooks that would run: none".to_owned());
    } else {
        line(format!(
            "classic hooks that would run{}: {}",
            if at(r, &["classic_hooks", "run"]) == &Value::Bool(true) {
                " (run with --run-hooks, each in a scratch folder)"
            } else {
                " (not run)"
            },
            hooks.len()
        ));
        for h in &hooks {
            line(format!(
                "  {} [{}] `{}` ({} settings {})",
                s(at(h, &["event"])),
                at(h, &["matcher"])
                    .as_str()
                    .map_or_else(|| "no matcher".to_owned(), |m| format!("matcher {m:?}")),
                s(at(h, &["command"])),
                s(at(h, &["source"])),
                s(at(h, &["pointer"]))
            ));
        }
    }
    line(format!(
        "mode: {} (working folder {})",
        s(at(r, &["mode"])),
        s(at(r, &["cwd"]))
    ));
    let o = &at(r, &["over_a_persons_plugin"]);
    line(format!(
        "over a person's plugin answering allow: {} (seated: {}; without the security default: {})",
        if at(o, &["held"]) == true {
            "HELD"
        } else {
            "not held"
        },
        s(at(o, &["seated", "decision"])),
        s(at(o, &["unseated", "decision"]))
    ));
    for p in at(r, &["problems"]).as_array().cloned().unwrap_or_default() {
        line(format!("problem: {}", s(at(&p, &["problem"]))));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_that_only_look_alike_are_printed_apart() {
        let report = json!({
            "call": {"tool": "Bash", "input": {}},
            "verdict": {"decision": "allow"},
            "decided_by": {"behavior": "allow", "rule": "Bash(curl\u{200b}:*)", "source": "user", "file": "f", "line": 1, "pointer": "/p"},
            "matched": [], "classic_hooks": {"hooks": []}, "over_a_persons_plugin": {},
        });
        let text = render(&report);
        assert!(text.contains("Bash(curl\\u{200b}:*)"), "{text}");
    }
}
