//! A reading's step through code: brackets and braces, operators, words, and the forks
//! where the tokenizer cannot know what oxc will do (`/`, and `<` in `.tsx`).

use super::lex::{
    byte, char_at, ident_starts, read_number, read_regex, read_string, read_word, skip_trivia,
};
use super::{classify, At, Brace, Branch, Dialect, Force, Kind, Label, Prev, Step, Word};

impl Branch {
    pub(super) fn code_step(&mut self, src: &str, d: Dialect) -> Step {
        let s = src.as_bytes();
        let (p, newline, _) = skip_trivia(src, self.pos);
        self.pos = p;
        self.newline |= newline;
        if p >= s.len() {
            return Step::End;
        }
        let b = byte(s, p);
        let nl = self.newline;
        // `return`, `break`, `continue` and a line break: a statement may start.
        if self.prev == Prev::Restricted && nl {
            self.at = At::Stmt;
        }
        let at = self.at;

        // A word, read first: whether it continues a statement decides the resets below.
        let word = if ident_starts(src, p) && at != At::Prop {
            let (end, text) = read_word(src, p, false);
            Some((end, text.map_or(Word::Plain, |t| classify(&t, self.prev))))
        } else {
            None
        };
        let continues_stmt = matches!(
            word,
            Some((_, Word::ElseDo | Word::Try | Word::CondStmt { .. }))
        ) && {
            let (_, text) = read_word(src, p, false);
            matches!(
                text.as_deref(),
                Some("else" | "while" | "catch" | "finally")
            )
        };

        // `return`, `break`, `continue` and a line break: the statement ended.
        if self.prev == Prev::Restricted && nl {
            self.reset_chain();
            if let Some(top) = self.top_mut() {
                top.pending = true;
            }
        }
        // A `;` or a block's `}` ended a statement: unless it goes on, its nesting ended.
        if self.levels.last().is_some_and(|l| l.pending) {
            if !continues_stmt {
                self.reset_stmt();
            }
            if let Some(top) = self.top_mut() {
                top.pending = false;
            }
        }

        if let Some((end, w)) = word {
            return self.word_step(end, w, at, nl, continues_stmt);
        }

        // An operand right after an operand: the expression before it ended.
        let operand_start = b.is_ascii_digit()
            || (b == b'.' && byte(s, p + 1).is_ascii_digit())
            || b == b'"'
            || b == b'\''
            || b == b'#';
        if operand_start && (at == At::Operator || self.prev == Prev::CloseBrace) {
            self.end_statement(false);
        }

        let force = self.force.take();
        self.newline = false;
        let prev = self.prev;
        self.prev = Prev::Other;
        macro_rules! chain {
            ($len:expr, $at:expr) => {{
                self.pos = p + $len;
                self.at = $at;
                if self.add_chain() {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }};
        }
        let b1 = byte(s, p + 1);
        let b2 = byte(s, p + 2);
        let b3 = byte(s, p + 3);
        match b {
            b'0'..=b'9' => {
                self.pos = read_number(s, p).max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'.' if b1.is_ascii_digit() => {
                self.pos = read_number(s, p).max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'"' | b'\'' => {
                let (end, terminated) = read_string(src, p);
                self.pos = end;
                if terminated {
                    self.at = At::Operator;
                } else {
                    self.at = At::Unknown;
                    self.newline = true;
                }
                Step::Go
            }
            b'#' => {
                let (end, _) = read_word(src, p + 1, false);
                self.pos = end.max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'`' => {
                self.pos = p + 1;
                if matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain() {
                    return self.too_deep();
                }
                if self.push(Kind::Template) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'(' => {
                self.pos = p + 1;
                let cond = matches!(prev, Prev::Cond { .. });
                if !cond && matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain()
                {
                    return self.too_deep();
                }
                self.at = At::Prefix;
                if self.push(Kind::Paren { cond }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'[' => {
                self.pos = p + 1;
                if matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain() {
                    return self.too_deep();
                }
                self.at = At::Prefix;
                if self.push(Kind::Bracket) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'{' => {
                self.pos = p + 1;
                let kind = match at {
                    At::Stmt => Brace::Block,
                    // `catch {` and `switch (x) {`.
                    At::Prefix if matches!(prev, Prev::Cond { .. }) => Brace::Block,
                    // An arrow function's body; after a `:`, a `case`'s block or a type.
                    At::Prefix if matches!(prev, Prev::Arrow | Prev::Class) => Brace::Other,
                    At::Prefix
                        if prev == Prev::Colon
                            && !matches!(self.top(), Kind::Brace(Brace::Object)) =>
                    {
                        Brace::Other
                    }
                    At::Prefix => Brace::Object,
                    _ => Brace::Other,
                };
                // Inside a block a statement starts; inside a brace of unknown kind (it may
                // be an object literal) nothing is assumed.
                self.at = match kind {
                    Brace::Block => At::Stmt,
                    Brace::Object => At::Prefix,
                    Brace::Other => At::Unknown,
                };
                if self.push(Kind::Brace(kind)) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b')' | b']' | b'}' => {
                self.pos = p + 1;
                self.pop_soft();
                match (b, self.top()) {
                    (b')', Kind::Paren { cond }) => {
                        self.pop();
                        self.at = if cond { At::Stmt } else { At::Operator };
                    }
                    (b']', Kind::Bracket) => {
                        self.pop();
                        self.at = At::Operator;
                    }
                    (b'}', Kind::Brace(kind)) => {
                        self.pop();
                        match kind {
                            Brace::Block => {
                                self.at = At::Stmt;
                                if let Some(top) = self.top_mut() {
                                    top.pending = true;
                                }
                            }
                            Brace::Object => self.at = At::Operator,
                            Brace::Other => {
                                self.at = At::Unknown;
                                self.prev = Prev::CloseBrace;
                            }
                        }
                    }
                    (b'}', Kind::TemplateExpr) => self.pop(),
                    (b'}', Kind::JsxExpr { .. }) => self.pop(),
                    // A closer that matches nothing: oxc reports it; keep every level.
                    _ => self.at = At::Unknown,
                }
                Step::Go
            }
            b';' => {
                self.pos = p + 1;
                self.pop_soft();
                if !self.in_code() {
                    return Step::End;
                }
                self.reset_chain();
                if let Some(top) = self.top_mut() {
                    top.pending = true;
                }
                // In a `for (;;)` head an expression follows, not a statement.
                self.at = if matches!(self.top(), Kind::Paren { .. }) {
                    At::Prefix
                } else {
                    At::Stmt
                };
                Step::Go
            }
            b',' => {
                self.pos = p + 1;
                self.reset_chain();
                self.at = At::Prefix;
                Step::Go
            }
            b':' => {
                self.pos = p + 1;
                if let Prev::Word {
                    label: sure @ (Label::Sure | Label::Maybe),
                } = prev
                {
                    // Where the scan knew a statement could start, this is a label; else
                    // count it as one but assume nothing after it.
                    self.at = if sure == Label::Sure {
                        At::Stmt
                    } else {
                        At::Unknown
                    };
                    if self.add_stmt() {
                        Step::Go
                    } else {
                        self.too_deep()
                    }
                } else {
                    self.at = At::Prefix;
                    self.prev = Prev::Colon;
                    Step::Go
                }
            }
            b'?' => {
                if b1 == b'.' && !b2.is_ascii_digit() {
                    chain!(2, At::Prop)
                } else if b1 == b'?' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'?' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'.' => {
                if b1 == b'.' && b2 == b'.' {
                    chain!(3, At::Prefix)
                } else {
                    chain!(1, At::Prop)
                }
            }
            b'=' => {
                if b1 == b'>' {
                    self.prev = Prev::Arrow;
                    chain!(2, At::Prefix)
                } else if b1 == b'=' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'!' => {
                if b1 == b'=' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else if d.ts && at == At::Operator && !nl {
                    chain!(1, At::Operator)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'+' | b'-' => {
                if b1 == b {
                    if at == At::Operator && !nl {
                        self.pos = p + 2;
                        self.at = At::Operator;
                        Step::Go
                    } else {
                        if at == At::Operator {
                            self.reset_chain();
                        }
                        chain!(2, At::Prefix)
                    }
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'*' => {
                if b1 == b'*' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'*' || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'&' | b'|' => {
                if b1 == b && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'%' | b'^' => {
                if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'~' => chain!(1, At::Prefix),
            // A decorator: its expression may itself be a decorated class (`@@@x`).
            b'@' => chain!(1, At::Prefix),
            // After an operand and a line break, `/` divides in an expression but starts a
            // regular expression after a statement that ended there (`let x`, `import x
            // from 'y'`, `break label`, a TypeScript type): both readings.
            b'/' if at == At::Operator && nl => {
                self.prev = prev;
                self.fork_at(At::Operator, At::Prefix)
            }
            b'/' => match at {
                At::Stmt | At::Prefix => match read_regex(src, p) {
                    Some(end) => {
                        self.pos = end;
                        self.at = At::Operator;
                        Step::Go
                    }
                    None => Step::End,
                },
                At::Operator | At::Prop => {
                    if b1 == b'=' {
                        chain!(2, At::Prefix)
                    } else {
                        chain!(1, At::Prefix)
                    }
                }
                At::Unknown => {
                    self.prev = prev;
                    self.fork_at(At::Operator, At::Prefix)
                }
            },
            b'>' => {
                if self.top() == Kind::Soft {
                    self.pos = p + 1;
                    self.pop();
                    self.at = At::Unknown;
                    Step::Go
                } else if b1 == b'>' && b2 == b'>' && b3 == b'=' {
                    chain!(4, At::Prefix)
                } else if b1 == b'>' && (b2 == b'>' || b2 == b'=') {
                    chain!(3, At::Prefix)
                } else if b1 == b'>' || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'<' => self.angle(src, d, p, at, prev, nl, force),
            _ => {
                // Not a token oxc knows (it reports it): skip the char, assume nothing.
                self.pos = p + char_at(src, p).map_or(1, char::len_utf8);
                self.at = At::Unknown;
                Step::Go
            }
        }
    }

    fn in_code(&self) -> bool {
        !matches!(
            self.top(),
            Kind::Template | Kind::JsxTag { .. } | Kind::JsxChildren
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn angle(
        &mut self,
        src: &str,
        d: Dialect,
        p: usize,
        at: At,
        prev: Prev,
        nl: bool,
        force: Option<Force>,
    ) -> Step {
        let s = src.as_bytes();
        let b1 = byte(s, p + 1);
        let b2 = byte(s, p + 2);
        if b1 == b'=' {
            self.pos = p + 2;
            self.at = At::Prefix;
            return if self.add_chain() {
                Step::Go
            } else {
                self.too_deep()
            };
        }
        if b1 == b'<' && b2 == b'=' {
            self.pos = p + 3;
            self.at = At::Prefix;
            return if self.add_chain() {
                Step::Go
            } else {
                self.too_deep()
            };
        }
        if b1 == b'<' {
            // A shift, or (TypeScript) two `<` opening type arguments and parameters.
            self.pos = p + 2;
            self.at = At::Prefix;
            if !self.add_chain() || !self.add_chain() {
                return self.too_deep();
            }
            if d.ts && (!self.push(Kind::Soft) || !self.push(Kind::Soft)) {
                return self.too_deep();
            }
            return Step::Go;
        }
        let soft = |me: &mut Self| {
            me.pos = p + 1;
            me.at = At::Prefix;
            if !me.add_chain() {
                return me.too_deep();
            }
            if d.ts && !me.push(Kind::Soft) {
                return me.too_deep();
            }
            Step::Go
        };
        if !d.jsx {
            return soft(self);
        }
        let prefix = match at {
            At::Stmt | At::Prefix => true,
            // After a line break, a statement may have ended (see `/`).
            At::Unknown | At::Operator if at == At::Unknown || nl => {
                self.prev = prev;
                return self.fork_at(At::Operator, At::Prefix);
            }
            At::Operator | At::Prop | At::Unknown => false,
        };
        if !prefix {
            return soft(self);
        }
        let choice = if d.ts {
            force.or_else(|| Self::tsx_angle(src, p))
        } else {
            Some(Force::Jsx)
        };
        match choice {
            Some(Force::Jsx) => self.open_jsx(src, p),
            Some(Force::Soft) => soft(self),
            None => {
                let mut other = self.clone();
                self.prev = prev;
                self.newline = nl;
                self.force = Some(Force::Jsx);
                other.prev = prev;
                other.newline = nl;
                other.force = Some(Force::Soft);
                Step::Fork(Box::new(other))
            }
        }
    }

    fn word_step(&mut self, end: usize, w: Word, at: At, nl: bool, continues: bool) -> Step {
        let prev = self.prev;
        self.newline = false;
        self.force = None;
        self.pos = end.max(self.pos + 1);
        // An operand right after an operand (or an unknown `}`): the expression ended.
        let infix = matches!(w, Word::Infix | Word::ContextualInfix);
        if !infix && (at == At::Operator || prev == Prev::CloseBrace) {
            self.end_statement(continues);
        }
        let label = match at {
            At::Stmt => Label::Sure,
            At::Operator if nl => Label::Sure,
            At::Unknown => Label::Maybe,
            _ => Label::No,
        };
        self.prev = Prev::Other;
        let ok = match w {
            Word::Plain => {
                self.at = At::Operator;
                self.prev = Prev::Word { label };
                true
            }
            Word::Operand | Word::AsConst => {
                self.at = At::Operator;
                true
            }
            Word::CondStmt { is_for } => {
                self.at = At::Prefix;
                self.prev = Prev::Cond { is_for };
                self.add_stmt()
            }
            Word::CondBraced => {
                self.at = At::Prefix;
                self.prev = Prev::Cond { is_for: false };
                true
            }
            Word::ElseDo => {
                self.at = At::Stmt;
                self.add_stmt()
            }
            Word::Try | Word::Module => {
                self.at = At::Stmt;
                true
            }
            Word::Restricted => {
                self.at = At::Prefix;
                self.prev = Prev::Restricted;
                true
            }
            Word::Lead | Word::Decl => {
                self.at = At::Prefix;
                true
            }
            Word::Class => {
                self.at = At::Prefix;
                self.prev = Prev::Class;
                true
            }
            Word::PrefixOp | Word::Infix => {
                self.at = At::Prefix;
                self.add_chain()
            }
            Word::Contextual => {
                self.at = At::Unknown;
                self.prev = Prev::Word { label };
                true
            }
            Word::ContextualOp => {
                self.at = At::Unknown;
                // `for await (`: the paren is still the loop's.
                self.prev = if let Prev::Cond { is_for: true } = prev {
                    prev
                } else {
                    Prev::Word { label }
                };
                self.add_chain()
            }
            Word::ContextualInfix => {
                self.at = At::Unknown;
                self.prev = Prev::As;
                self.add_chain()
            }
        };
        if ok {
            Step::Go
        } else {
            self.too_deep()
        }
    }
}
