//! `sed` scripts read as sed reads them (SPEC §4 "What the core cannot see"): GNU
//! sed runs commands (`e`, the `e` flag of `s`) and reads and writes files (`r`,
//! `R`, `w`, `W`, the `w` flag of `s`) from inside its script, so a `sed` part is
//! judged by what its script does.

use super::words::Word;

/// What a sed script does besides editing its input.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct SedEffects {
    /// It may run a command (`e`, `s///e`), or the script could not be read to the
    /// end (a command sed does not know, a script file).
    pub runs: bool,
    /// The files it reads (`r`, `R`) and writes (`w`, `W`, `s///w`): `(path, write)`.
    pub files: Vec<(String, bool)>,
}

/// The scripts of a `sed` command's arguments (`-e S`, `--expression=S`, or the first
/// operand), and whether one comes from a file (`-f F`).
fn scripts(args: &[Word]) -> (Vec<&str>, bool) {
    let mut out = Vec::new();
    let mut from_file = false;
    let mut it = args.iter();
    let mut operand_is_script = true;
    let mut first_operand: Option<&str> = None;
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        match t {
            "-e" | "--expression" => {
                operand_is_script = false;
                if let Some(v) = it.next() {
                    out.push(v.text.as_str());
                }
            }
            "-f" | "--file" => {
                operand_is_script = false;
                from_file = true;
                let _ = it.next();
            }
            "-l" | "--line-length" => {
                let _ = it.next();
            }
            // Long options by any unambiguous prefix (`--expr=`, `--fi=`).
            _ if t.starts_with("--") && t.contains('=') => {
                let (name, value) = t.split_once('=').unwrap_or((t, ""));
                let name = name.trim_start_matches('-');
                if super::wrappers::long_prefix(name, "expression") {
                    operand_is_script = false;
                    out.push(value);
                } else if super::wrappers::long_prefix(name, "file") {
                    operand_is_script = false;
                    from_file = true;
                }
            }
            _ if t.starts_with("--")
                && ["expression", "file"]
                    .iter()
                    .any(|l| super::wrappers::long_prefix(t.trim_start_matches('-'), l)) =>
            {
                operand_is_script = false;
                if super::wrappers::long_prefix(t.trim_start_matches('-'), "file") {
                    from_file = true;
                    let _ = it.next();
                } else if let Some(v) = it.next() {
                    out.push(v.text.as_str());
                }
            }
            _ if t.starts_with('-') && t.len() > 1 && !t.starts_with("--") => {
                // Bundled short options: `-ne SCRIPT`, `-nf FILE`, `-e` last.
                let flags = t.get(1..).unwrap_or_default();
                if flags.ends_with('e') {
                    operand_is_script = false;
                    if let Some(v) = it.next() {
                        out.push(v.text.as_str());
                    }
                } else if flags.contains('e') {
                    operand_is_script = false;
                    let at = flags.find('e').unwrap_or(0);
                    out.push(flags.get(at + 1..).unwrap_or_default());
                } else if flags.contains('f') {
                    operand_is_script = false;
                    from_file = true;
                    if flags.ends_with('f') {
                        let _ = it.next();
                    }
                }
            }
            _ if t.starts_with('-') => {}
            _ => {
                if first_operand.is_none() {
                    first_operand = Some(t);
                }
            }
        }
    }
    if operand_is_script {
        out.extend(first_operand);
    }
    (out, from_file)
}

/// What the scripts of a `sed` command (its arguments) do.
pub(super) fn sed_effects(args: &[Word]) -> SedEffects {
    let (scripts, from_file) = scripts(args);
    let mut effects = SedEffects {
        runs: from_file || args.iter().any(|a| a.dynamic && !a.text.starts_with('-')),
        files: Vec::new(),
    };
    for s in scripts {
        read_script(s, &mut effects);
    }
    effects
}

/// Reads one script, command by command.
fn read_script(script: &str, fx: &mut SedEffects) {
    let b: Vec<char> = script.chars().collect();
    let mut i = 0;
    let at = |i: usize| b.get(i).copied();
    let rest_of_line = |i: &mut usize| -> String {
        let mut s = String::new();
        while let Some(c) = at(*i) {
            *i += 1;
            if c == '\n' {
                break;
            }
            s.push(c);
        }
        s.trim().to_owned()
    };
    loop {
        while at(i).is_some_and(|c| c.is_whitespace() || c == ';' || c == '}') {
            i += 1;
        }
        let Some(_) = at(i) else { break };
        if !address(&b, &mut i) {
            fx.runs = true;
            return;
        }
        if at(i) == Some(',') {
            i += 1;
            if !address(&b, &mut i) {
                fx.runs = true;
                return;
            }
        }
        while at(i).is_some_and(|c| c.is_whitespace() || c == '!') {
            i += 1;
        }
        let Some(cmd) = at(i) else { break };
        i += 1;
        match cmd {
            '{' => {}
            '#' => {
                let _ = rest_of_line(&mut i);
            }
            's' | 'y' => {
                let Some(delim) = at(i) else {
                    fx.runs = true;
                    return;
                };
                i += 1;
                for _ in 0..2 {
                    while let Some(c) = at(i) {
                        i += 1;
                        if c == '\\' {
                            i += 1;
                        } else if c == delim {
                            break;
                        }
                    }
                }
                if cmd == 's' {
                    while let Some(f) = at(i) {
                        match f {
                            'e' => {
                                fx.runs = true;
                                i += 1;
                            }
                            'w' => {
                                i += 1;
                                let file = rest_of_line(&mut i);
                                fx.files.push((file, true));
                                break;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            c if c.is_ascii_digit() => i += 1,
                            _ => break,
                        }
                    }
                }
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line, continued by a trailing backslash.
                loop {
                    let line = rest_of_line(&mut i);
                    if !line.ends_with('\\') || at(i).is_none() {
                        break;
                    }
                }
            }
            'r' | 'R' => {
                let file = rest_of_line(&mut i);
                fx.files.push((file, false));
            }
            'w' | 'W' => {
                let file = rest_of_line(&mut i);
                fx.files.push((file, true));
            }
            'e' => {
                fx.runs = true;
                let _ = rest_of_line(&mut i);
            }
            'b' | 't' | 'T' | ':' | 'v' => {
                while at(i).is_some_and(|c| c != ';' && c != '\n' && c != '}') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                while at(i).is_some_and(|c| c.is_whitespace() || c.is_ascii_digit()) {
                    i += 1;
                }
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'x' | 'n' | 'N' | 'p' | 'P' | 'z' | 'F' => {}
            // A command sed may know and the core does not: it may run anything.
            _ => {
                fx.runs = true;
                return;
            }
        }
    }
}

/// Skips one address (`12`, `$`, `/re/I`, `\%re%`, `first~step`, `+N`, `~N`);
/// `false` when one starts but does not end.
fn address(b: &[char], i: &mut usize) -> bool {
    let at = |i: usize| b.get(i).copied();
    match at(*i) {
        Some(c) if c.is_ascii_digit() || c == '+' || c == '~' => {
            *i += 1;
            while at(*i).is_some_and(|c| c.is_ascii_digit() || c == '~') {
                *i += 1;
            }
        }
        Some('$') => *i += 1,
        Some(open @ ('/' | '\\')) => {
            let delim = if open == '\\' {
                *i += 1;
                match at(*i) {
                    Some(d) => d,
                    None => return false,
                }
            } else {
                '/'
            };
            *i += 1;
            loop {
                match at(*i) {
                    None => return false,
                    Some('\\') => *i += 2,
                    Some(c) if c == delim => {
                        *i += 1;
                        break;
                    }
                    Some(_) => *i += 1,
                }
            }
            while at(*i).is_some_and(|c| c == 'I' || c == 'M') {
                *i += 1;
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(args: &[&str]) -> SedEffects {
        let words: Vec<Word> = args.iter().map(|a| Word::literal(*a)).collect();
        sed_effects(&words)
    }

    #[test]
    fn sed_scripts_that_run_or_touch_files() {
        for args in [
            &["1{e rm -rf build\n}", "f"][..],
            &["s/.*/rm -rf build/Me", "f"],
            &["s/^/x/me", "f"],
            &["-n", "s/.*/x/ep", "f"],
            &["2!e rm -rf build", "f"],
            &["-f", "/dev/stdin", "f"],
            &["-e", "p", "-e", "e ls"],
            &["-ne", "1e ls", "f"],
            &["1Z", "f"],
        ] {
            assert!(fx(args).runs, "{args:?}");
        }
        assert_eq!(
            fx(&["1r secrets/key.pem", "f"]).files,
            vec![("secrets/key.pem".to_owned(), false)]
        );
        assert_eq!(
            fx(&["s/a/b/w out.txt", "f"]).files,
            vec![("out.txt".to_owned(), true)]
        );
        for args in [
            &["s/hello/world/g", "f"][..],
            &["-n", "/^e/p", "f"],
            &["-E", "s/(e)/\\1x/; 3q", "f"],
            &["y/abc/xyz/", "f"],
            &["/start/,/end/d", "f"],
            &["$a\\\nend", "f"],
        ] {
            let e = fx(args);
            assert!(!e.runs && e.files.is_empty(), "{args:?}: {e:?}");
        }
    }
}
