//! The file-command table: which arguments of the file commands the core recognises
//! (`cat`, `grep`, `sed`, `sort`, `cp`, `tee`, `rm`, ..., and `dd` and `find`) are
//! paths, and whether each is read or written, so that Read and Edit rules meet them
//! (SPEC §4 "Read and Edit rules meet shell commands").

use super::words::{basename, Word};

/// How a file command takes its arguments.
struct FileCommand {
    names: &'static [&'static str],
    /// Options whose value is a separate word and not a path.
    opts_with_arg: &'static [&'static str],
    /// Options whose value is a path the command reads.
    read_opts: &'static [&'static str],
    /// Options whose value is a path the command writes.
    write_opts: &'static [&'static str],
    /// Options that supply the program/pattern, so no positional one is taken.
    program_opts: &'static [&'static str],
    /// Whether the first positional argument is a program or pattern, not a path.
    program_first: bool,
    /// Which positional paths are written.
    writes: Writes,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Writes {
    None,
    All,
    /// The last positional (cp: the target; the others are read).
    Last,
    /// The second positional (uniq, xxd: the output file).
    Second,
}

impl FileCommand {
    /// The fields an entry of [`FILE_COMMANDS`] does not spell out: no options, no
    /// program or pattern, every positional path read.
    const DEFAULT: FileCommand = FileCommand {
        names: &[],
        opts_with_arg: &[],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    };
}

const FILE_COMMANDS: &[FileCommand] = &[
    FileCommand {
        names: &["cat", "zcat", "bzcat", "xzcat"],
        ..FileCommand::DEFAULT
    },
    // More readers that print what they read (the bypass corpus: `paste`, `rev`).
    FileCommand {
        names: &[
            "paste",
            "rev",
            "fold",
            "fmt",
            "pr",
            "expand",
            "unexpand",
            "column",
            "comm",
            "join",
            "shuf",
            "look",
            "iconv",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
            "zless",
            "zmore",
            "zgrep",
            "bzgrep",
            "xzgrep",
            "zdiff",
            "funzip",
            "lzcat",
            "zstdcat",
            "lz4cat",
            "eqn",
            "tbl",
            "ul",
            "ptx",
            "soelim",
            "preconv",
            "groff",
            "nroff",
            "troff",
            "pic",
            "refer",
            "grap",
            "man",
            "objdump",
            "readelf",
            "nm",
            "pager",
            "sensible-pager",
            "cpp",
            "gcc",
            "cc",
            "clang",
            "g++",
            "c++",
            "as",
        ],
        opts_with_arg: &[
            "-d",
            "--delimiters",
            "-w",
            "--width",
            "-t",
            "-s",
            "-n",
            "-o",
            "-e",
            "-f",
            "-c",
            "--separator",
            "--output",
        ],
        ..FileCommand::DEFAULT
    },
    // Compressors replace the files they are given (`gzip f` writes `f.gz`).
    FileCommand {
        names: &[
            "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "lzma",
        ],
        opts_with_arg: &["-S", "--suffix", "-T", "--threads", "-o"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    // Editors read and write the files they open.
    FileCommand {
        names: &[
            "ed",
            "red",
            "ex",
            "vi",
            "vim",
            "nvim",
            "view",
            "nano",
            "pico",
            "emacs",
            "joe",
            "mcedit",
            "vim.basic",
            "vim.tiny",
            "vimdiff",
            "editor",
            "sensible-editor",
        ],
        opts_with_arg: &[
            "-c", "--cmd", "-S", "-s", "-u", "-U", "-i", "-T", "-w", "-W", "-p", "--eval", "-l",
            "--load",
        ],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    // `openssl SUBCOMMAND -in FILE -out FILE ...`.
    FileCommand {
        names: &["openssl"],
        program_first: true,
        read_opts: &[
            "-in",
            "-inkey",
            "-key",
            "-kfile",
            "-CAfile",
            "-cert",
            "-infiles",
            "-signkey",
            "-certfile",
            "-config",
            "-rand",
        ],
        write_opts: &["-out", "-keyout"],
        opts_with_arg: &[
            "-pass", "-passin", "-passout", "-aes256", "-md", "-subj", "-days", "-newkey",
            "-engine", "-inform", "-outform",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["tac"],
        opts_with_arg: &["-s", "--separator"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["base64", "base32", "basenc"],
        opts_with_arg: &["-w", "--wrap"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["less", "more", "most"],
        opts_with_arg: &[
            "-b",
            "-h",
            "-j",
            "-k",
            "-p",
            "-P",
            "-t",
            "-T",
            "-x",
            "-y",
            "-z",
            "-#",
            "-n",
            "--lines",
            "--pattern",
            "--tag",
            "--shift",
            "--tabs",
            "--max-back-scroll",
            "--max-forw-scroll",
            "--window",
            "--prompt",
        ],
        write_opts: &["-o", "-O", "--log-file", "--LOG-FILE"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["nl"],
        opts_with_arg: &[
            "-b",
            "-d",
            "-f",
            "-h",
            "-i",
            "-l",
            "-n",
            "-s",
            "-v",
            "-w",
            "--body-numbering",
            "--section-delimiter",
            "--footer-numbering",
            "--header-numbering",
            "--line-increment",
            "--join-blank-lines",
            "--number-format",
            "--number-separator",
            "--starting-line-number",
            "--number-width",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["file"],
        opts_with_arg: &[
            "-F",
            "-e",
            "-P",
            "--separator",
            "--exclude",
            "--exclude-quiet",
            "--parameter",
        ],
        read_opts: &["-m", "--magic-file", "-f", "--files-from"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["stat"],
        opts_with_arg: &["-c", "--format", "--printf"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["strings"],
        opts_with_arg: &[
            "-n",
            "-t",
            "-e",
            "-T",
            "-s",
            "--bytes",
            "--radix",
            "--encoding",
            "--target",
            "--output-separator",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["od"],
        opts_with_arg: &[
            "-A",
            "-j",
            "-N",
            "-S",
            "-t",
            "--address-radix",
            "--skip-bytes",
            "--read-bytes",
            "--strings",
            "--format",
            "--width",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["hexdump", "hd"],
        opts_with_arg: &["-e", "-n", "-s"],
        read_opts: &["-f"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["cut"],
        opts_with_arg: &[
            "-b",
            "-c",
            "-f",
            "-d",
            "--bytes",
            "--characters",
            "--fields",
            "--delimiter",
            "--output-delimiter",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["head"],
        opts_with_arg: &["-n", "-c", "--lines", "--bytes"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["tail"],
        opts_with_arg: &[
            "-n",
            "-c",
            "-s",
            "--lines",
            "--bytes",
            "--sleep-interval",
            "--pid",
            "--max-unchanged-stats",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["wc"],
        read_opts: &["--files0-from"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["cmp"],
        opts_with_arg: &["-i", "-n", "--ignore-initial", "--bytes"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["diff", "sdiff", "diff3"],
        opts_with_arg: &[
            "-C",
            "-U",
            "-F",
            "-I",
            "-L",
            "-x",
            "-S",
            "-D",
            "-W",
            "--label",
            "--ifdef",
            "--exclude",
            "--show-function-line",
            "--ignore-matching-lines",
            "--starting-file",
            "--line-format",
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
            "--tabsize",
            "--width",
            "--context",
            "--unified",
            "--horizon-lines",
            "--color",
            "--palette",
        ],
        read_opts: &["-X", "--exclude-from", "--from-file", "--to-file"],
        write_opts: &["-o", "--output"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["ls", "dir", "vdir"],
        opts_with_arg: &[
            "-I",
            "-w",
            "-T",
            "--ignore",
            "--hide",
            "--width",
            "--tabsize",
            "--format",
            "--sort",
            "--time",
            "--time-style",
            "--color",
            "--quoting-style",
            "--block-size",
            "--indicator-style",
        ],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["tree"],
        opts_with_arg: &[
            "-L",
            "-P",
            "-I",
            "-H",
            "-T",
            "--charset",
            "--filelimit",
            "--timefmt",
            "--sort",
        ],
        write_opts: &["-o"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["grep", "egrep", "fgrep", "zgrep"],
        opts_with_arg: &[
            "-m",
            "-A",
            "-B",
            "-C",
            "-d",
            "-D",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--label",
            "--color",
            "--colour",
            "--binary-files",
            "--devices",
            "--directories",
            "--group-separator",
        ],
        read_opts: &["-f", "--file", "--exclude-from"],
        program_opts: &["-e", "--regexp", "-f", "--file"],
        program_first: true,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["rg"],
        opts_with_arg: &[
            "-m",
            "-A",
            "-B",
            "-C",
            "-g",
            "-t",
            "-T",
            "-j",
            "-M",
            "-E",
            "-r",
            "-d",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--type-add",
            "--threads",
            "--max-columns",
            "--encoding",
            "--replace",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--max-depth",
            "--sort",
            "--sortr",
            "--colors",
            "--color",
            "--path-separator",
            "--max-filesize",
            "--dfa-size-limit",
            "--regex-size-limit",
            "--engine",
            "--context-separator",
            "--field-match-separator",
            "--field-context-separator",
        ],
        read_opts: &["-f", "--file", "--ignore-file"],
        program_opts: &["-e", "--regexp", "-f", "--file"],
        program_first: true,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["sed"],
        opts_with_arg: &["-l", "--line-length"],
        read_opts: &["-f", "--file"],
        program_opts: &["-e", "--expression", "-f", "--file"],
        program_first: true,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["awk", "gawk", "mawk", "nawk"],
        opts_with_arg: &["-v", "-F"],
        read_opts: &["-f", "--file"],
        program_opts: &["-f", "--file"],
        program_first: true,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["jq"],
        opts_with_arg: &["--arg", "--argjson", "--indent", "-L"],
        read_opts: &["-f", "--from-file", "--slurpfile", "--rawfile"],
        program_opts: &["-f", "--from-file"],
        program_first: true,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["sort"],
        opts_with_arg: &[
            "-k",
            "-t",
            "-S",
            "-T",
            "--key",
            "--field-separator",
            "--buffer-size",
            "--temporary-directory",
            "--parallel",
            "--batch-size",
            "--compress-program",
        ],
        read_opts: &["--files0-from"],
        write_opts: &["-o", "--output"],
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["uniq"],
        opts_with_arg: &[
            "-f",
            "-s",
            "-w",
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
        ],
        writes: Writes::Second,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["xxd"],
        opts_with_arg: &[
            "-c",
            "-g",
            "-l",
            "-o",
            "-s",
            "-n",
            "-cols",
            "-len",
            "-seek",
            "-groupsize",
            "-offset",
            "-name",
        ],
        writes: Writes::Second,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["tee"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["touch"],
        opts_with_arg: &["-d", "-t", "--date"],
        read_opts: &["-r", "--reference"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["rm", "rmdir", "unlink"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["mkdir"],
        opts_with_arg: &["-m", "--mode", "--context"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["truncate"],
        opts_with_arg: &["-s", "--size"],
        read_opts: &["-r", "--reference"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["shred"],
        opts_with_arg: &["-n", "-s", "--iterations", "--size", "--random-source"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["mv"],
        opts_with_arg: &["-S", "--suffix"],
        write_opts: &["-t", "--target-directory"],
        writes: Writes::All,
        ..FileCommand::DEFAULT
    },
    FileCommand {
        names: &["cp", "ln", "install", "link"],
        opts_with_arg: &[
            "-S", "--suffix", "-m", "-o", "-g", "--mode", "--owner", "--group",
        ],
        write_opts: &["-t", "--target-directory"],
        writes: Writes::Last,
        ..FileCommand::DEFAULT
    },
];

/// The path arguments of a file command the core recognises (SPEC §4 "Read and Edit
/// rules meet shell commands"), each with whether it is written.
pub(super) fn file_words(words: &[Word]) -> Vec<(Word, bool)> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let value = |a: &Word, text: &str| a.with_text(text);
    let name = basename(&first.text);
    let mut out: Vec<(Word, bool)> = Vec::new();
    if name == "dd" {
        for a in args {
            if let Some(p) = a.text.strip_prefix("if=") {
                out.push((value(a, p), false));
            } else if let Some(p) = a.text.strip_prefix("of=") {
                out.push((value(a, p), true));
            }
        }
        return out;
    }
    if name == "find" {
        // The starting points: the words before the first expression.
        for a in args {
            if a.text.starts_with('-') || a.text == "(" || a.text == "!" {
                break;
            }
            out.push((a.clone(), false));
        }
        return out;
    }
    let Some(spec) = FILE_COMMANDS.iter().find(|c| c.names.contains(&name)) else {
        return out;
    };
    let in_place = name == "sed"
        && args.iter().any(|a| {
            let t = a.text.as_str();
            t.starts_with("--in-place")
                || t.starts_with("-i")
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.len() > 1
                    && t.chars().skip(1).all(|c| c.is_ascii_alphabetic())
                    && t.contains('i'))
        });
    let mut positional: Vec<&Word> = Vec::new();
    let mut program_given = false;
    let mut target_given = false;
    let mut it = args.iter();
    let mut options_done = false;
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if t.starts_with('+') && matches!(name, "less" | "more" | "most" | "tail") {
            // `less +G f`, `tail +5 f`: a command or a line number, not a path.
            continue;
        }
        if options_done || !t.starts_with('-') || t == "-" {
            if t != "-" {
                positional.push(a);
            }
            continue;
        }
        if t == "--" {
            options_done = true;
            continue;
        }
        let (opt, inline) = match t.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        if spec.program_opts.contains(&opt) {
            program_given = true;
        }
        let takes = |list: &[&str]| list.contains(&opt);
        if takes(spec.read_opts) || takes(spec.write_opts) {
            let write = takes(spec.write_opts);
            target_given |= write;
            if let Some(v) = inline {
                out.push((value(a, v), write));
            } else if let Some(v) = it.next() {
                // `--slurpfile name file`, `--rawfile name file`: the file is second.
                let v = if matches!(opt, "--slurpfile" | "--rawfile") {
                    it.next().unwrap_or(v)
                } else {
                    v
                };
                out.push((v.clone(), write));
            }
            continue;
        }
        if inline.is_none() && (takes(spec.opts_with_arg) || takes(spec.program_opts)) {
            let _ = it.next();
            if opt == "--arg" || opt == "--argjson" {
                let _ = it.next();
            }
        }
    }
    let mut positional = positional.into_iter();
    if spec.program_first && !program_given {
        let _ = positional.next();
    }
    let positional: Vec<&Word> = positional.collect();
    let n = positional.len();
    for (i, w) in positional.into_iter().enumerate() {
        let write = in_place
            || match spec.writes {
                Writes::None => false,
                Writes::All => true,
                Writes::Last => !target_given && i + 1 == n && n > 1,
                Writes::Second => i == 1,
            };
        out.push((w.clone(), write));
    }
    out
}

/// Whether a short-option word (`-rn`, `-Ri`) or a long one names one of `letters` /
/// `longs`.
fn has_flag(args: &[Word], letters: &[char], longs: &[&str]) -> bool {
    args.iter().any(|a| {
        let t = a.text.as_str();
        if let Some(long) = t.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or_default();
            return longs.contains(&long);
        }
        t.strip_prefix('-').is_some_and(|f| {
            !f.is_empty() && f.chars().all(|c| c.is_ascii_alphanumeric()) && f.contains(letters)
        })
    })
}

/// The non-option words of `args` (a `--` ends the options); `skip_values`: options
/// whose value is the next word.
fn operands<'w>(args: &'w [Word], skip_values: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut it = args.iter();
    let mut done = false;
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if done || !t.starts_with('-') || t == "-" {
            out.push(a);
        } else if t == "--" {
            done = true;
        } else if skip_values.contains(&t) {
            let _ = it.next();
        }
    }
    out
}

/// The history files `history` touches beyond the one [`folder_reads`] gives
/// (`history -r FILE`): the file `-w`/`-a` write, and `$HISTFILE` where `-r`, `-n`,
/// `-w` or `-a` name none (`None`: a path known only at run time; bash 5.2 reads
/// whatever `HISTFILE=secrets/key.pem; history -r; history` points it at). Each
/// with whether it is written.
pub(super) fn history_files(words: &[Word]) -> Vec<(Option<Word>, bool)> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    if basename(&first.text) != "history" {
        return Vec::new();
    }
    for (i, a) in args.iter().enumerate() {
        let t = a.text.as_str();
        if !t.starts_with('-') || t.len() < 2 || t == "--" {
            break;
        }
        let flags = t.get(1..).unwrap_or_default();
        let write = flags.contains(['w', 'a']);
        if !write && !flags.contains(['r', 'n']) {
            continue;
        }
        let file = args
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .find(|w| !w.text.starts_with('-'));
        return match file {
            Some(f) if write => vec![(Some(f.clone()), true)],
            Some(_) => Vec::new(),
            None => vec![(None, write)],
        };
    }
    Vec::new()
}

/// Whether a command that reads folders whole follows the symbolic links inside them
/// (`grep -R`, `rg -L`/`--follow`, `ag -f`, `ack --follow`, `tar -h`/`--dereference`,
/// `cp -L`, `rsync -L`/`-k`, `zip` unless `-y`): what it reads then lies anywhere a link
/// inside points, which is not known before it runs (SPEC §4 "What the core cannot see").
pub(super) fn follows_links(words: &[Word]) -> bool {
    let Some((first, args)) = words.split_first() else {
        return false;
    };
    match basename(&first.text) {
        "grep" | "egrep" | "fgrep" | "zgrep" => has_flag(args, &['R'], &["dereference-recursive"]),
        "rg" => has_flag(args, &['L'], &["follow"]),
        "ag" => has_flag(args, &['f'], &["follow"]),
        "ack" => has_flag(args, &[], &["follow"]),
        "tar" | "bsdtar" | "gtar" => {
            let first_arg = args.first().map(|a| a.text.as_str()).unwrap_or_default();
            has_flag(args, &['h'], &["dereference"])
                || (!first_arg.starts_with('-') && first_arg.contains('h'))
        }
        "cp" => has_flag(args, &['L'], &["dereference"]),
        "rsync" => has_flag(
            args,
            &['L', 'k'],
            &["copy-links", "copy-dirlinks", "copy-unsafe-links"],
        ),
        "zip" => !has_flag(args, &['y'], &["symlinks"]),
        _ => false,
    }
}

/// The folders a command reads whole (SPEC §4 "Folders read whole meet every `Read`
/// rule beneath them"): `grep -r`/`-R`, `rg`, `find` with `-exec`/`-execdir`/`-ok`,
/// `tar -c`, `zip -r`, `cp -r`, `rsync`, `scp -r`; and git's readers: `git diff
/// --no-index`, `git show <rev>:<path>`, `git grep`, `git cat-file`, `git archive`
/// (the files they name, or the whole repository, taken as the working folder).
pub(super) fn folder_reads(words: &[Word]) -> Vec<Word> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let here = || vec![Word::literal(".")];
    let name = basename(&first.text);
    match name {
        "grep" | "egrep" | "fgrep" | "zgrep"
            if has_flag(args, &['r', 'R'], &["recursive", "dereference-recursive"]) =>
        {
            let ops = operands(
                args,
                &[
                    "-e",
                    "-f",
                    "-m",
                    "-A",
                    "-B",
                    "-C",
                    "--include",
                    "--exclude",
                    "--exclude-dir",
                ],
            );
            searched(args, ops, &["regexp", "file"])
        }
        "rg" | "ag" | "ack" => {
            let ops = operands(
                args,
                &[
                    "-e",
                    "-f",
                    "-g",
                    "--glob",
                    "-t",
                    "--type",
                    "-T",
                    "-m",
                    "-A",
                    "-B",
                    "-C",
                    "-j",
                    "--max-depth",
                    "-d",
                    "--iglob",
                ],
            );
            searched(args, ops, &["regexp", "file", "files"])
        }
        "find"
            if args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) =>
        {
            let starts: Vec<Word> = args
                .iter()
                .take_while(|a| !(a.text.starts_with('-') || a.text == "(" || a.text == "!"))
                .cloned()
                .collect();
            if starts.is_empty() {
                here()
            } else {
                starts
            }
        }
        "tar" | "bsdtar" | "gtar" => {
            let first_arg = args.first().map(|a| a.text.as_str()).unwrap_or_default();
            let create = has_flag(args, &['c', 'r', 'u'], &["create", "append", "update"])
                || args.iter().any(|a| {
                    a.text.strip_prefix("--").is_some_and(|l| {
                        l.len() >= 2
                            && ["create", "append", "update"]
                                .iter()
                                .any(|c| c.starts_with(l))
                    })
                })
                || (!first_arg.starts_with('-') && first_arg.contains(['c', 'r', 'u']));
            if !create {
                return Vec::new();
            }
            // The archive (`-f FILE`, or the word after a bundled `cf`) is written, not
            // read; a `-C DIR` moves where the rest is read (kept as written).
            let mut out = Vec::new();
            let mut it = args.iter().enumerate();
            let bundled_f = !first_arg.starts_with('-') && first_arg.contains('f');
            while let Some((i, a)) = it.next() {
                let t = a.text.as_str();
                if i == 0 && !t.starts_with('-') {
                    if bundled_f {
                        let _ = it.next();
                    }
                    continue;
                }
                // `-f FILE` (the archive): skipped; `-f-` or `-fFILE` attached.
                if t.starts_with('-') && !t.starts_with("--") && t.contains('f') {
                    if t.ends_with('f') {
                        let _ = it.next();
                    }
                    continue;
                }
                if t == "--file" {
                    let _ = it.next();
                    continue;
                }
                // `-C DIR`, `-CDIR`, `--directory=DIR` (by any prefix): read from there.
                if let Some(dir) = t
                    .strip_prefix("-C")
                    .filter(|d| !d.is_empty() && !t.starts_with("--"))
                {
                    out.push(a.with_text(dir));
                    continue;
                }
                if let Some(l) = t.strip_prefix("--") {
                    let (name, value) = l.split_once('=').map_or((l, None), |(n, v)| (n, Some(v)));
                    if name.len() >= 3 && "directory".starts_with(name) {
                        match value {
                            Some(v) => out.push(a.with_text(v)),
                            None => {
                                if let Some((_, d)) = it.next() {
                                    out.push(d.clone());
                                }
                            }
                        }
                        continue;
                    }
                }
                if t == "-C" {
                    if let Some((_, d)) = it.next() {
                        out.push(d.clone());
                    }
                    continue;
                }
                if t.starts_with('-') {
                    continue;
                }
                out.push(a.clone());
            }
            out
        }
        // Every operand past the archive is read (whole, with `-r`); `-R` reads the
        // working folder; `-@` names from standard input (unknown).
        "zip" => {
            let mut out: Vec<Word> =
                operands(args, &["-x", "-i", "-P", "--password", "-b", "-t", "-tt"])
                    .into_iter()
                    .skip(1)
                    .cloned()
                    .collect();
            if has_flag(args, &['R'], &["recurse-patterns"]) {
                out.push(Word::literal("."));
            }
            if args
                .iter()
                .any(|a| a.text == "-@" || (a.text.starts_with('-') && a.text.contains('@')))
            {
                out.push(Word {
                    text: "$(zip names)".to_owned(),
                    dynamic: true,
                    ..Word::default()
                });
            }
            out
        }
        // `xargs -a FILE`: the file's words become arguments; `sort --files0-from=F`.
        "xargs" | "sort" => {
            let (letter, long) = if name == "xargs" {
                ('a', "arg-file")
            } else {
                ('\u{0}', "files0-from")
            };
            match super::wrappers::option_value(args, letter, long).flatten() {
                Some((f, d)) => vec![
                    Word {
                        text: f,
                        dynamic: d,
                        ..Word::default()
                    },
                    Word {
                        text: "$(names in a file)".to_owned(),
                        dynamic: true,
                        ..Word::default()
                    },
                ],
                None => Vec::new(),
            }
        }
        "7z" | "7za" => operands(args, &[]).into_iter().skip(2).cloned().collect(),
        "cp" if has_flag(args, &['r', 'R', 'a'], &["recursive", "archive"]) => {
            let ops = operands(args, &["-S", "--suffix", "-t", "--target-directory"]);
            let n = ops.len();
            let target_given = has_flag(args, &['t'], &["target-directory"]);
            ops.into_iter()
                .take(if target_given { n } else { n.saturating_sub(1) })
                .cloned()
                .collect()
        }
        "rsync" | "scp" => {
            let ops = operands(
                args,
                &[
                    "-e",
                    "--rsh",
                    "-i",
                    "-P",
                    "-F",
                    "-o",
                    "-l",
                    "-c",
                    "-J",
                    "--exclude",
                    "--include",
                    "--filter",
                ],
            );
            let n = ops.len();
            ops.into_iter()
                .take(n.saturating_sub(1))
                .filter(|w| {
                    !w.text.contains(':') || w.text.starts_with('/') || w.text.starts_with('.')
                })
                .cloned()
                .collect()
        }
        "git" => git_reads(args),
        // `history -r FILE`, `history -n FILE`: read into the history list.
        "history" => args
            .windows(2)
            .filter(|p| {
                p.first()
                    .is_some_and(|f| matches!(f.text.as_str(), "-r" | "-n"))
            })
            .filter_map(|p| p.get(1).cloned())
            .collect(),
        // `python3 -m MODULE ARGS`: the arguments are read (`-m base64 f`);
        // `-m http.server` serves the working folder whole.
        n if n.starts_with("python") => {
            let Some(m) = args.iter().position(|a| a.text == "-m") else {
                return Vec::new();
            };
            let module = args.get(m + 1).map(|w| w.text.as_str()).unwrap_or_default();
            if matches!(module, "http.server" | "SimpleHTTPServer" | "pydoc") {
                return vec![Word::literal(".")];
            }
            args.get(m + 2..)
                .unwrap_or_default()
                .iter()
                .filter(|a| !a.text.starts_with('-'))
                .cloned()
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The folders a search (`grep -r`, `rg`) reads: its operands past the pattern
/// (none when `-e`/`-f` gives it), else the working folder.
fn searched(args: &[Word], ops: Vec<&Word>, pattern_longs: &[&str]) -> Vec<Word> {
    let pattern_given = has_flag(args, &['e', 'f'], pattern_longs);
    let paths: Vec<Word> = ops
        .into_iter()
        .skip(usize::from(!pattern_given))
        .cloned()
        .collect();
    if paths.is_empty() {
        vec![Word::literal(".")]
    } else {
        paths
    }
}

/// The files and folders git's readers read (see [`folder_reads`]).
///
/// Paths are as git takes them: from the folder its `-C` options lead to, which the
/// caller has made the command's folder (`git_directory_moves`). `--git-dir DIR` and
/// `--work-tree DIR` (`=DIR` too) are read whole: the objects and the files git
/// reads are there.
fn git_reads(args: &[Word]) -> Vec<Word> {
    // Past git's own options.
    let mut i = 0;
    let mut elsewhere: Vec<Word> = Vec::new();
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if let Some((opt, dir)) = t.split_once('=') {
            if matches!(opt, "--git-dir" | "--work-tree") {
                elsewhere.push(a.with_text(dir));
                i += 1;
                continue;
            }
        }
        match t {
            "--git-dir" | "--work-tree" => {
                elsewhere.extend(args.get(i + 1).cloned());
                i += 2;
            }
            t if super::wrappers::GIT_OPTIONS_WITH_VALUE.contains(&t) => i += 2,
            t if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return elsewhere;
    };
    let rest = args.get(i + 1..).unwrap_or_default();
    let repo = || vec![Word::literal(".")];
    let rev_paths = |ws: &[&Word]| -> Vec<Word> {
        ws.iter()
            .filter_map(|w| w.text.split_once(':').map(|(_, p)| w.with_text(p)))
            .map(|w| {
                if w.text.is_empty() {
                    Word::literal(".")
                } else {
                    w
                }
            })
            .collect()
    };
    let read: Vec<Word> = match sub.text.as_str() {
        "diff" if rest.iter().any(|w| w.text == "--no-index") => operands(rest, &[])
            .into_iter()
            .filter(|w| w.text != "/dev/null")
            .cloned()
            .collect(),
        "show" | "cat-file" => {
            let ops = operands(rest, &["--format", "--pretty"]);
            let named = rev_paths(&ops);
            if named.is_empty() && sub.text == "cat-file" {
                // An object by its id: any file of the repository.
                repo()
            } else {
                named
            }
        }
        "grep" | "archive" | "bundle" | "fast-export" => repo(),
        "merge-file" | "update-index" | "hash-object" | "blame" | "annotate" => {
            operands(rest, &["-L", "--stdin-paths"])
                .into_iter()
                .cloned()
                .collect()
        }
        // `git add` reads what it stages (`-A`, `.`: the whole repository); `git
        // stash` saves the whole working tree.
        "add" | "stash" => {
            let ops: Vec<Word> = operands(rest, &["--chmod", "--pathspec-from-file"])
                .into_iter()
                .cloned()
                .collect();
            if ops.is_empty() {
                repo()
            } else {
                ops
            }
        }
        _ => Vec::new(),
    };
    elsewhere.extend(read);
    elsewhere
}

#[cfg(test)]
mod tests {
    use crate::bash::parse_command;

    fn files(cmd: &str) -> Vec<(String, bool, Vec<String>)> {
        parse_command(cmd)
            .files
            .into_iter()
            .map(|f| (f.path.clone(), f.write, f.candidates()))
            .collect()
    }

    #[test]
    fn file_commands() {
        assert_eq!(
            files("cat a b"),
            vec![
                ("a".into(), false, vec!["a".into()]),
                ("b".into(), false, vec!["b".into()])
            ]
        );
        let f = files("grep -n secret .env");
        assert_eq!(f.len(), 1);
        assert_eq!(f.first().unwrap().0, ".env");
        let f = files("grep -e x -f pats .env");
        let paths: Vec<_> = f.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(paths, vec!["pats", ".env"]);
        let f = files("head -n 5 a");
        assert_eq!(f.len(), 1);
        let f = files("cp a b c");
        assert_eq!(
            f.iter().map(|x| x.1).collect::<Vec<_>>(),
            vec![false, false, true]
        );
        let f = files("sed -i s/a/b/ f");
        assert_eq!(f, vec![("f".into(), true, vec!["f".into()])]);
        let f = files("jq .a --slurpfile n secret.json in.json");
        let paths: Vec<_> = f.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(paths, vec!["secret.json", "in.json"]);
        let f = files("sudo cat /etc/shadow");
        assert_eq!(f.first().unwrap().0, "/etc/shadow");
        let f = files("cd /etc && cat passwd");
        assert_eq!(f.first().unwrap().2, vec!["/etc/passwd".to_owned()]);
        let f = files("cd /etc; cat passwd");
        assert_eq!(
            f.first().unwrap().2,
            vec!["passwd".to_owned(), "/etc/passwd".to_owned()]
        );
        let f = files("cd /etc && cd ssh && tee x < y");
        assert_eq!(f.first().unwrap().2, vec!["/etc/ssh/y".to_owned()]);
        let p = parse_command("for d in a b; do cd $d; cat x; done");
        assert!(p.files.iter().all(|f| !f.resolvable()));
        let f = files("bash -c 'cat ~/.ssh/id_rsa'");
        assert_eq!(f.first().unwrap().0, "~/.ssh/id_rsa");
        let f = files("od -c secret");
        assert_eq!(f.first().unwrap().0, "secret");
        let f = files("cat -n secret");
        assert_eq!(f.first().unwrap().0, "secret");
        let f = files("dd if=/dev/sda of=disk.img");
        assert_eq!(f.len(), 2);
    }
}
