//! Where bash evaluates a word as arithmetic past `$(( ))`, `(( ))` and `let`
//! (SPEC §4 "Arithmetic is code"): the subscripts of array assignments
//! (`b=([i]=1)`, `b[i]=1`) unless the array is associative, and every assignment to
//! a variable with the integer attribute (`declare -i`), the ones builtins make
//! included (`read`, `mapfile`, `printf -v`, `getopts`, `wait -p`, `for`,
//! `${y:=w}`). A value arithmetic reads that the walk does not know may be code
//! (`a[$(cmd)]`): the command then runs something unknown.

use super::walker::Walker;
use super::words::Word;
use super::wrappers::is_assignment;
use brush_parser::ast;
use std::collections::BTreeSet;

/// The variable attributes that make later words arithmetic, as far as the walk can
/// tell. Each only grows: a name once an integer is read as one from then on (more
/// arithmetic only makes matching stricter).
#[derive(Debug, Clone, Default)]
pub(super) struct Attributes {
    /// The names `declare -i` (`typeset`, `local`) made integers.
    integers: BTreeSet<String>,
    /// Some name not known was made an integer (`declare -i "$n"`): any may be one.
    any_integer: bool,
    /// The names surely declared associative (`declare -A b` where it surely ran):
    /// their subscripts are strings, not arithmetic.
    associative: BTreeSet<String>,
    /// The names declared namerefs (`declare -n r=y`): assigning one assigns the
    /// variable it names, which may be an integer.
    namerefs: BTreeSet<String>,
}

impl Attributes {
    /// Whether some variable may be an integer.
    fn any(&self) -> bool {
        self.any_integer || !self.integers.is_empty()
    }

    /// Whether an assignment to `name` (`y`, `y+`, `y[0]`) may be arithmetic.
    pub(super) fn is_integer(&self, name: &str) -> bool {
        let name = base_name(name);
        self.any_integer
            || SHELL_INTEGERS.contains(&name)
            || self.integers.contains(name)
            || (self.namerefs.contains(name) && !self.integers.is_empty())
    }
}

/// The variables bash itself gives the integer attribute: an assignment to one is
/// arithmetic with no `declare -i` in sight (`RANDOM=x`, `read OPTIND`, `for RANDOM in
/// x`), as bash 5.2 was seen to do. `SECONDS`, `LINENO` and the other dynamic
/// variables read their value as a plain number, not as arithmetic.
const SHELL_INTEGERS: &[&str] = &["RANDOM", "SRANDOM", "OPTIND", "HISTCMD"];

/// `y+`, `y[0]`, `y[0]+` as the variable's name `y`.
fn base_name(name: &str) -> &str {
    name.split('[')
        .next()
        .unwrap_or_default()
        .trim_end_matches('+')
}

/// `b[i]=v`, `b[i]+=v`: an assignment to an array element.
pub(super) fn is_element_assignment(w: &Word) -> bool {
    let Some((head, _)) = w.text.split_once('=') else {
        return false;
    };
    let head = head.strip_suffix('+').unwrap_or(head);
    head.split_once('[')
        .is_some_and(|(name, rest)| super::expand::is_var_name(name) && rest.ends_with(']'))
}

/// The subscripts of a compound value written as text (`([i]=1 [j]=2)`).
fn compound_keys(value: &str) -> Vec<&str> {
    let Some(inner) = value.strip_prefix('(') else {
        return Vec::new();
    };
    inner
        .split_whitespace()
        .filter_map(|e| e.strip_prefix('['))
        .filter_map(|e| e.rsplit_once("]=").or_else(|| e.rsplit_once("]+=")))
        .map(|(key, _)| key)
        .collect()
}

/// The builtins that declare variables and take attributes as options.
const DECLARATIONS: &[&str] = &["declare", "typeset", "local", "export", "readonly"];

/// The program word of `words` and its arguments, past `builtin` and `command`.
fn program_and_args(words: &[Word]) -> Option<(&str, &[Word])> {
    let mut i = words.iter().position(|w| !is_assignment(w))?;
    while words
        .get(i)
        .is_some_and(|w| matches!(w.text.as_str(), "builtin" | "command" | "coproc"))
    {
        i += 1;
    }
    let p = words.get(i)?;
    Some((p.text.as_str(), words.get(i + 1..).unwrap_or_default()))
}

impl Walker<'_> {
    /// `declare`/`typeset`/`local`/`export`/`readonly`: the attributes `-i`, `-A`,
    /// `-n` recorded for the names given; a value given to a name that is (or is
    /// made) an integer is arithmetic.
    pub(super) fn declarations(&mut self, words: &[Word]) {
        let Some((program, args)) = program_and_args(words) else {
            return;
        };
        if !DECLARATIONS.contains(&program) {
            return;
        }
        let flags: String = args
            .iter()
            .filter(|a| a.text.starts_with('-') && a.text != "--")
            .flat_map(|a| a.text.chars().skip(1))
            .collect();
        let integer = flags.contains('i');
        let certain = self.certain_here();
        for a in args.iter().filter(|a| !a.text.starts_with(['-', '+'])) {
            let names: Option<Vec<String>> = match a.text.split_once('=') {
                Some((name, _)) if super::expand::is_var_name(base_name(name)) => {
                    Some(vec![base_name(name).to_owned()])
                }
                None if super::expand::is_var_name(base_name(&a.text)) => {
                    Some(vec![base_name(&a.text).to_owned()])
                }
                // A name given by an expansion: whatever it may hold.
                _ => self.fields(a).map(|vs| {
                    vs.iter()
                        .map(|v| base_name(v.split('=').next().unwrap_or_default()).to_owned())
                        .collect()
                }),
            };
            let Some(names) = names else {
                if integer {
                    self.attrs.any_integer = true;
                }
                if flags.contains('n') {
                    // A nameref to an unknown variable: any assignment may be one,
                    // and bash's own integers (`RANDOM`) are always about.
                    self.attrs.any_integer = true;
                }
                continue;
            };
            for name in names {
                if integer {
                    self.attrs.integers.insert(name.clone());
                }
                if flags.contains('A') && certain {
                    self.attrs.associative.insert(name.clone());
                }
                if flags.contains('n') {
                    self.attrs.namerefs.insert(name.clone());
                    // `declare -n r=RANDOM`: `r` is one of bash's integers.
                    if a.text
                        .split_once('=')
                        .is_some_and(|(_, target)| SHELL_INTEGERS.contains(&base_name(target)))
                    {
                        self.attrs.integers.insert(name.clone());
                    }
                }
                if let Some((head, v)) = a.text.split_once('=') {
                    if integer || self.attrs.is_integer(&name) {
                        self.arithmetic(v);
                    }
                    if !flags.contains('A') && !self.attrs.associative.contains(&name) {
                        // `declare b[i]=1`, `declare -a b=([i]=1)`: the subscripts are
                        // arithmetic (the words are no globs here).
                        self.name_subscript(head);
                        for key in compound_keys(v) {
                            self.arithmetic(key);
                        }
                    }
                }
            }
        }
    }

    /// Builtins that assign a value read at run time (`read`, `mapfile`, `printf
    /// -v`, `getopts`, `wait -p`) to an integer variable: the value is arithmetic the
    /// walk does not know, so the command runs something unknown.
    pub(super) fn integer_builtins(&mut self, words: &[Word]) {
        let Some((program, args)) = program_and_args(words) else {
            return;
        };
        if program == "unset" {
            // `unset b`: an associative `b` is gone; assigned again, it is indexed.
            for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                self.attrs.associative.remove(base_name(&a.text));
            }
            return;
        }
        // Code run in this shell that the walk reads apart from what it knows
        // (`eval 'y=x'`, `trap 'y=x' EXIT`, `coproc y=x`): with an integer about,
        // any assignment there may be arithmetic.
        let elsewhere = matches!(
            program,
            "eval" | "trap" | "source" | "." | "alias" | "bind" | "complete" | "compgen"
        ) || words.iter().any(|w| w.text == "coproc");
        if elsewhere && self.attrs.any() {
            self.arith_unknown = true;
        }
        let (implicit, targets): (Option<&str>, Vec<&Word>) = match program {
            "read" => (Some("REPLY"), args.iter().collect()),
            "mapfile" | "readarray" => (Some("MAPFILE"), args.iter().collect()),
            "getopts" => (Some("OPTARG"), args.iter().collect()),
            "printf" | "wait" => {
                let flag = if program == "printf" { "-v" } else { "-p" };
                let mut t = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    if a.text == flag {
                        t.extend(args.get(i + 1));
                    } else if a.text.starts_with(flag) && !a.text.starts_with("--") {
                        t.push(a);
                    }
                }
                (None, t)
            }
            _ => return,
        };
        let mut hit = implicit.is_some_and(|n| self.attrs.is_integer(n));
        for w in targets {
            let text = w.text.strip_prefix("-v").unwrap_or(&w.text);
            let text = text.strip_prefix("-p").unwrap_or(text);
            hit |= if w.dynamic {
                // Not known: `operand_names` already holds the command.
                self.fields(w)
                    .is_some_and(|vs| vs.iter().any(|v| self.attrs.is_integer(v)))
            } else {
                self.attrs.is_integer(text)
            };
        }
        if hit {
            self.arith_unknown = true;
        }
    }

    /// The subscripts of an assignment written before a command or alone (`b[i]=1`,
    /// `b=([i]=1 [j]=2)`, `b+=(...)`): arithmetic, unless `b` is surely associative.
    pub(super) fn assignment_subscripts(&mut self, a: &ast::Assignment) {
        let name = match &a.name {
            ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _) => n,
        };
        if self.attrs.associative.contains(name) {
            return;
        }
        if let ast::AssignmentName::ArrayElementName(_, index) = &a.name {
            self.arithmetic(index);
        }
        if let ast::AssignmentValue::Array(elements) = &a.value {
            for (key, value) in elements {
                if let Some(key) = key {
                    self.arithmetic(&key.value);
                }
                if self.attrs.is_integer(name) {
                    self.arithmetic(&value.value);
                }
            }
        }
    }

    /// `for y in w...` with an integer `y`: each value is arithmetic.
    pub(super) fn integer_loop(&mut self, name: &str, values: Option<Vec<String>>) {
        if self.attrs.is_integer(name) {
            self.read_each(values, Self::arithmetic);
        }
    }

    /// `${y:=w}`, `${y=w}` with an integer `y`: `w` is arithmetic.
    pub(super) fn integer_default(&mut self, name: &str, word: &str) {
        if self.attrs.is_integer(name) {
            self.arithmetic(word);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bash::parse_command;
    use crate::bash::tests::strict;

    const X: &str = "x='a[$(rm -rf build)]'; ";

    /// The command runs `rm -rf build`: deny rules meet it exactly.
    fn runs_rm(cmd: &str) -> bool {
        strict(cmd).iter().any(|s| s == "rm -rf build")
    }

    /// Some part of the command runs something the core cannot see.
    fn uncertain(cmd: &str) -> bool {
        parse_command(cmd).parts.iter().any(|p| p.runs_anything)
    }

    #[test]
    fn substring_offsets_of_positional_parameters_are_arithmetic() {
        for tail in [
            "echo ${@:x}",
            "echo ${*:x}",
            "echo ${@:0:x}",
            "echo ${*:0:x}",
            "echo \"${@:1:x}\"",
            "echo ${#:x}",
            "arr=(1 2); echo ${arr[@]:x:1}",
            "arr=(1 2); echo ${arr[*]:0:x}",
            "v=abc; echo ${v:0:x}",
            "echo ${x: x}",
            "echo ${x::x}",
            "a=(1); echo \"${a[@]:x}\" ${!a[x]} ${#a[x]} ${a[x]:-q}",
            "declare -A h; h[k]=1; echo ${h[@]:x}",
        ] {
            assert!(runs_rm(&format!("{X}{tail}")), "{tail}");
        }
        assert!(uncertain("echo ${@:NOPE}"));
        assert!(uncertain("echo ${*:0:$1}"));
        assert!(!uncertain("echo ${@:1:2} ${*: -1}"));
        assert!(!uncertain("echo ${@:-x} ${*:+y}"));
    }

    #[test]
    fn subscripts_of_array_assignments_are_arithmetic() {
        for tail in [
            "b=([x]=1)",
            "b+=([x]=1)",
            "b=(1 [x]=2)",
            "b=(['$(rm -rf build)']=1)",
            "b=(1); b[x]=1",
            "b[x]+=1",
            "declare -a b=([x]=1)",
            "typeset -a b=([x]=1)",
            "export b=([x]=1)",
            "declare b[x]=1",
            "declare -a b; declare b+=([1]=2 [x]=1)",
        ] {
            let cmd = if tail.contains("$(rm") {
                tail.to_owned()
            } else {
                format!("{X}{tail}")
            };
            assert!(runs_rm(&cmd), "{cmd}");
        }
        assert!(uncertain("b=([NOPE]=1)"));
        assert!(uncertain(&format!("{X}f(){{ local -a b=([x]=1); }}; f")));
        assert!(uncertain("b=(1); b[$1]=1"));
        // An associative array's keys are strings.
        assert!(!runs_rm(&format!("{X}declare -A b; b=([x]=1)")));
        assert!(!uncertain("declare -A b; b=([NOPE]=1 [k]=2)"));
        // Unset, it is an indexed array again.
        assert!(runs_rm(&format!("{X}declare -A b; unset b; b=([x]=1)")));
        // Declared associative only perhaps: perhaps indexed.
        assert!(runs_rm(&format!("{X}true || declare -A b; b=([x]=1)")));
        assert!(!uncertain("b=([0]=a [1]=b); c=(x y)"));
    }

    #[test]
    fn every_assignment_to_an_integer_is_arithmetic() {
        for tail in [
            "declare -i y; y=x",
            "declare -i y; y+=x",
            "typeset -i y; y=x",
            "declare -ia y; y=x",
            "declare -ia y; y=(x)",
            "declare -i y; y[0]=x",
            "declare -i y; y=([0]=x)",
            "declare -i y=x",
            "declare -i y; export y=x",
            "declare -i y; declare y=x",
            "declare -i y; readonly y=x",
            "declare -i y; for y in x; do :; done",
            "declare -i y; echo ${y:=x}",
            "declare -i y; echo ${y=x}",
            "declare -i y; : \"${y:=x}\"",
            "declare -i y; echo $(y=x)",
            "declare -i y z; z=x",
            "[[ $x -ne 1 ]]",
            "[[ 1 -lt \"$x\" ]]",
            // bash's own integers, with no `declare -i` in sight.
            "RANDOM=x",
            "SRANDOM=$x",
            "OPTIND=x",
            "HISTCMD=x",
            "export OPTIND=x",
            "for RANDOM in x; do :; done",
        ] {
            assert!(runs_rm(&format!("{X}{tail}")), "{tail}");
        }
        for cmd in [
            "declare -i y; read y <<< x",
            "declare -i y; read -r z y <<< 'q x'",
            "declare -i REPLY; read <<< x",
            "declare -i y; printf -v y %s x",
            "declare -i y; printf -vy %s x",
            "declare -i y; mapfile -t y <<< x",
            "declare -i y; readarray y <<< x",
            "declare -i MAPFILE; mapfile <<< x",
            "declare -i y; getopts x y -x",
            "declare -i OPTARG; getopts a: o -a x",
            "declare -i y; builtin read y <<< x",
            "declare -i y; y=$(cat f)",
            "declare -i y; for y in $(cat f); do :; done",
            "declare -i y; : ${y:=$NOPE}",
            "declare -i \"$n\"; y=x",
            "n=y; declare -i $n; read y <<< x",
            "declare -n r; r=y; declare -i y; r=NOPE",
            "declare -n r=y; declare -i y; r=x",
            "declare -i y; eval 'y=x'",
            "declare -i y; trap 'y=x' EXIT",
            "declare -i y; coproc y=x",
            "declare -i y; IFS=, read -a y <<< 'x,x'",
            "declare -i y; while read y; do :; done <<< x",
            "read RANDOM <<< x",
            "printf -v OPTIND %s x",
            "declare -n r=\"$n\"; r=x",
            "declare -n r=RANDOM; r=x",
            "x='a[$(rm -rf build)]'; f(){ local -i y; y=x; }; f",
        ] {
            assert!(uncertain(cmd), "{cmd}");
        }
        // What is not an integer is read as a string.
        for cmd in [
            "read y <<< x",
            "printf -v y %s x",
            "mapfile -t y <<< x",
            "for y in NOPE; do :; done",
            "declare -i n; n=5; read y <<< x; printf -v z %s n",
            "declare -i n=0; for y in a b; do n+=1; done",
            "eval 'y=x'; trap 'y=x' EXIT",
            "SECONDS=x; LINENO=x; read SECONDS <<< x",
        ] {
            assert!(!uncertain(cmd), "{cmd}");
        }
    }
}
