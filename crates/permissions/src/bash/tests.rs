//! Tests of the shell splitter that span its concerns (the walker, words, wrappers
//! and runners, the analysis), and the helpers the files' tests share (SPEC §4
//! "Compound shell commands").

use super::{parse_command, split};

pub(super) fn words(cmd: &str) -> Vec<Vec<String>> {
    split(cmd)
        .unwrap()
        .into_iter()
        .map(|s| s.words.into_iter().map(|w| w.text).collect())
        .collect()
}

pub(super) fn strict(cmd: &str) -> Vec<String> {
    parse_command(cmd)
        .parts
        .into_iter()
        .flat_map(|p| p.strict_forms)
        .collect()
}

#[test]
fn programs_known_only_at_run_time_are_uncertain() {
    for cmd in [
        "$X -rf b",
        "{rm,-rf,b}",
        "/bin/r? x",
        "eval ls",
        "ls | sh",
        "bash -s",
        "sh <<EOF\nls\nEOF",
        ". <(echo ls)",
        "xargs -I{} sh -c '{}'",
        "find . -exec {} \\;",
    ] {
        let p = parse_command(cmd);
        assert!(!p.certain, "{cmd}");
        assert!(p.parts.iter().any(|part| part.uncertain), "{cmd}");
    }
    for cmd in [
        "ls $X",
        "sh x.sh",
        "bash -c 'ls'",
        "echo {}",
        "find . -exec rm {} +",
    ] {
        assert!(parse_command(cmd).certain, "{cmd}");
    }
    // Fed code is parsed: deny rules meet it.
    assert!(strict("bash <<< 'rm -rf /'").contains(&"rm -rf /".to_owned()));
    assert!(strict("flock /l -c 'rm -rf /'").contains(&"rm -rf /".to_owned()));
    assert!(strict("busybox rm -rf /").contains(&"rm -rf /".to_owned()));
    assert!(strict("( (rm -rf /) )").contains(&"rm -rf /".to_owned()));
    assert!(strict("rm\\ -rf /").contains(&"rm -rf /".to_owned()));
}
