//! A reading (a `Branch`): its levels and counters (what the measure sums), the step
//! that goes on from where it is, its steps through template literals and JSX (text,
//! tags, attributes, children), and its forks.

use super::lex::{byte, ident_starts, read_string, read_word, skip_trivia};
use super::{At, Branch, Dialect, Force, Kind, Level, Prev, Step, MAX_DEPTH};

impl Branch {
    pub(super) fn new(src: &str) -> Self {
        let s = src.as_bytes();
        // A hashbang line is a comment.
        let mut pos = 0;
        if s.starts_with(b"#!") {
            pos = s
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .unwrap_or(s.len());
        }
        Self {
            pos,
            levels: vec![Level::new(Kind::Top)],
            sum: 0,
            max: 0,
            at: At::Stmt,
            prev: Prev::Other,
            newline: false,
            force: None,
        }
    }

    pub(super) fn mergeable(&self, other: &Self) -> bool {
        self.pos == other.pos
            && self.at == other.at
            && self.prev == other.prev
            && self.newline == other.newline
            && self.force == other.force
            && self.levels.len() == other.levels.len()
            && self
                .levels
                .iter()
                .zip(&other.levels)
                .all(|(a, b)| a.kind == b.kind)
    }

    /// Takes in `other` (mergeable with `self`): the larger counters of both, so that
    /// whatever follows, the merged branch counts at least what either would.
    pub(super) fn absorb(&mut self, other: &Self) {
        for (mine, theirs) in self.levels.iter_mut().zip(&other.levels) {
            mine.chain = mine.chain.max(theirs.chain);
            mine.stmt = mine.stmt.max(theirs.stmt);
            mine.pending = mine.pending && theirs.pending;
        }
        self.sum = self
            .levels
            .iter()
            .map(Level::cost)
            .fold(0, u32::saturating_add);
        self.max = self.max.max(other.max).max(self.sum);
    }

    pub(super) fn top(&self) -> Kind {
        self.levels.last().map_or(Kind::Top, |l| l.kind)
    }

    pub(super) fn top_mut(&mut self) -> Option<&mut Level> {
        self.levels.last_mut()
    }

    fn check(&mut self) -> bool {
        self.max = self.max.max(self.sum);
        self.sum <= MAX_DEPTH
    }

    pub(super) fn add_chain(&mut self) -> bool {
        if let Some(top) = self.levels.last_mut() {
            top.chain = top.chain.saturating_add(1);
        }
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    pub(super) fn add_stmt(&mut self) -> bool {
        if let Some(top) = self.levels.last_mut() {
            top.stmt = top.stmt.saturating_add(1);
        }
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    pub(super) fn reset_chain(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.sum = self.sum.saturating_sub(top.chain);
            top.chain = 0;
        }
    }

    pub(super) fn reset_stmt(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.sum = self.sum.saturating_sub(top.stmt);
            top.stmt = 0;
        }
    }

    /// An operand starts right after an operand (or after a `}` whose kind is not
    /// known): no expression continues that way, so the one at this level ended, and so
    /// did its statement (by ASI; without a line break oxc stops with an error), and with
    /// it the statements nested without braces around it, unless the token goes on with
    /// one of them (`continues`: `else`, `while`, `catch`, `finally`).
    ///
    /// Open `<` levels end too: inside type arguments an operand never follows an operand,
    /// so each was a comparison (or oxc stops with an error).
    pub(super) fn end_statement(&mut self, continues: bool) {
        self.pop_soft();
        self.reset_chain();
        if !continues {
            self.reset_stmt();
        }
    }

    pub(super) fn push(&mut self, kind: Kind) -> bool {
        self.levels.push(Level::new(kind));
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    pub(super) fn pop(&mut self) {
        if self.levels.len() > 1 {
            if let Some(level) = self.levels.pop() {
                self.sum = self.sum.saturating_sub(level.cost());
            }
        }
    }

    pub(super) fn pop_soft(&mut self) {
        while self.top() == Kind::Soft {
            self.pop();
        }
    }

    pub(super) fn too_deep(&self) -> Step {
        Step::TooDeep(self.pos)
    }

    /// One step: a token in code, a run of template or JSX text, a piece of a JSX tag.
    pub(super) fn step(&mut self, src: &str, d: Dialect) -> Step {
        match self.top() {
            Kind::Template => self.template_step(src),
            Kind::JsxTag { after_eq } => self.tag_step(src, d, after_eq),
            Kind::JsxChildren => self.children_step(src),
            _ => self.code_step(src, d),
        }
    }

    fn template_step(&mut self, src: &str) -> Step {
        let s = src.as_bytes();
        let mut p = self.pos;
        loop {
            if p >= s.len() {
                return Step::End;
            }
            match byte(s, p) {
                b'\\' => p += 2,
                b'`' => {
                    self.pos = p + 1;
                    self.pop();
                    self.at = At::Operator;
                    self.prev = Prev::Other;
                    self.newline = false;
                    return Step::Go;
                }
                b'$' if byte(s, p + 1) == b'{' => {
                    self.pos = p + 2;
                    self.at = At::Prefix;
                    self.prev = Prev::Other;
                    self.newline = false;
                    return if self.push(Kind::TemplateExpr) {
                        Step::Go
                    } else {
                        self.too_deep()
                    };
                }
                _ => p += 1,
            }
        }
    }

    /// After a JSX element closed: go on where it was.
    fn after_element(&mut self) {
        if let Some(top) = self.top_mut() {
            if let Kind::JsxTag { .. } = top.kind {
                top.kind = Kind::JsxTag { after_eq: false };
            }
        }
        self.at = At::Operator;
        self.prev = Prev::Other;
        self.newline = false;
    }

    fn tag_step(&mut self, src: &str, d: Dialect, after_eq: bool) -> Step {
        let s = src.as_bytes();
        let (p, _, _) = skip_trivia(src, self.pos);
        self.pos = p;
        if p >= s.len() {
            return Step::End;
        }
        let b = byte(s, p);
        let set_after_eq = |me: &mut Self, v: bool| {
            if let Some(top) = me.top_mut() {
                top.kind = Kind::JsxTag { after_eq: v };
            }
        };
        match b {
            b'.' => {
                self.pos = p + 1;
                if self.add_chain() {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b':' => {
                self.pos = p + 1;
                Step::Go
            }
            b'=' => {
                self.pos = p + 1;
                set_after_eq(self, true);
                Step::Go
            }
            b'"' | b'\'' if after_eq => {
                let rest = s.get(p + 1..).unwrap_or_default();
                match rest.iter().position(|&c| c == b) {
                    Some(len) => {
                        self.pos = p + 1 + len + 1;
                        set_after_eq(self, false);
                        Step::Go
                    }
                    None => Step::End,
                }
            }
            b'"' | b'\'' => {
                let (end, _) = read_string(src, p);
                self.pos = end;
                Step::Go
            }
            b'{' => {
                self.pos = p + 1;
                set_after_eq(self, false);
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::JsxExpr { child: false }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'<' if after_eq => {
                set_after_eq(self, false);
                self.open_jsx(src, p)
            }
            b'<' if d.ts => {
                self.pos = p + 1;
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::Soft) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'/' => {
                let (q, _, _) = skip_trivia(src, p + 1);
                if byte(s, q) == b'>' {
                    self.pos = q + 1;
                    self.pop();
                    self.after_element();
                    Step::Go
                } else {
                    Step::End
                }
            }
            b'>' => {
                self.pos = p + 1;
                if let Some(top) = self.top_mut() {
                    top.kind = Kind::JsxChildren;
                }
                Step::Go
            }
            _ if !after_eq && ident_starts(src, p) => {
                let (end, _) = read_word(src, p, true);
                self.pos = end.max(p + 1);
                Step::Go
            }
            _ => Step::End,
        }
    }

    fn children_step(&mut self, src: &str) -> Step {
        let s = src.as_bytes();
        let rest = s.get(self.pos..).unwrap_or_default();
        let Some(off) = rest
            .iter()
            .position(|&c| matches!(c, b'{' | b'<' | b'}' | b'>'))
        else {
            return Step::End;
        };
        let p = self.pos + off;
        match byte(s, p) {
            b'{' => {
                self.pos = p + 1;
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::JsxExpr { child: true }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'<' => {
                let (q, _, _) = skip_trivia(src, p + 1);
                if byte(s, q) == b'/' {
                    // A closing tag: its name, then `>`.
                    let mut r = q + 1;
                    loop {
                        let (t, _, _) = skip_trivia(src, r);
                        r = t;
                        let c = byte(s, r);
                        if c == b'.' || c == b':' || c == b'-' {
                            r += 1;
                        } else if ident_starts(src, r) {
                            let (end, _) = read_word(src, r, true);
                            r = end.max(r + 1);
                        } else {
                            break;
                        }
                    }
                    if byte(s, r) == b'>' {
                        self.pos = r + 1;
                        self.pop();
                        self.after_element();
                        Step::Go
                    } else {
                        Step::End
                    }
                } else {
                    self.open_jsx(src, p)
                }
            }
            _ => Step::End,
        }
    }

    /// A JSX element or fragment opens at `p` (a `<` where oxc reads JSX).
    pub(super) fn open_jsx(&mut self, src: &str, p: usize) -> Step {
        let s = src.as_bytes();
        let (q, _, _) = skip_trivia(src, p + 1);
        if byte(s, q) == b'>' {
            self.pos = q + 1;
            if self.push(Kind::JsxChildren) {
                Step::Go
            } else {
                self.too_deep()
            }
        } else if ident_starts(src, q) {
            self.pos = q;
            if self.push(Kind::JsxTag { after_eq: false }) {
                Step::Go
            } else {
                self.too_deep()
            }
        } else {
            Step::End
        }
    }

    /// How a `<` where an operand is expected reads in `.tsx`: JSX, type parameters, or
    /// either (then fork). See the module docs.
    pub(super) fn tsx_angle(src: &str, p: usize) -> Option<Force> {
        let s = src.as_bytes();
        let (q, _, _) = skip_trivia(src, p + 1);
        if byte(s, q) == b'>' || !ident_starts(src, q) {
            return Some(Force::Jsx);
        }
        let (end, w1) = read_word(src, q, false);
        let (r, _, _) = skip_trivia(src, end);
        let t2 = byte(s, r);
        if t2 == b',' || t2 == b'=' {
            return Some(Force::Soft);
        }
        if ident_starts(src, r) {
            let (_, w2) = read_word(src, r, false);
            if w2.as_deref() == Some("extends")
                || matches!(w1.as_deref(), Some("const" | "in" | "out"))
            {
                return None;
            }
            return Some(Force::Jsx);
        }
        if t2 == b'>' {
            let (t, _, _) = skip_trivia(src, r + 1);
            if byte(s, t) == b'(' {
                return None;
            }
        }
        Some(Force::Jsx)
    }

    /// Forks before the current token: this branch reads it with `first`, the returned
    /// one with `second`. (The line-break flag is cleared: it has decided this already.)
    pub(super) fn fork_at(&mut self, first: At, second: At) -> Step {
        self.newline = false;
        let mut other = self.clone();
        self.at = first;
        other.at = second;
        Step::Fork(Box::new(other))
    }
}
