//! Positions of compiled JavaScript back to the source (SPEC §6 "register": a throw names
//! "the line in its source").

/// Maps a (1-based) line and column of a module's compiled JavaScript to its source's
/// (SPEC §6 "A mod", "register").
///
/// Built from the source map oxc's code generator writes: one mapping per token it
/// printed (identifiers, literals, statement and expression starts), each a compiled
/// position and the source position it came from. Columns are counted as the source map
/// counts them (UTF-16 code units), 1-based here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMap {
    /// `(js_line, js_column, source_line, source_column)`, all 1-based, sorted.
    pub(crate) map: Vec<(u32, u32, u32, u32)>,
}

impl LineMap {
    /// A map from its mappings: `(js_line, js_column, source_line, source_column)`, all
    /// 1-based, in any order.
    #[must_use]
    pub fn from_mappings(mut map: Vec<(u32, u32, u32, u32)>) -> Self {
        map.sort_unstable();
        map.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        Self { map }
    }

    /// How many mappings it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds none (a module given as JavaScript, not compiled).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The source file's 1-based `(line, column)` of the compiled JavaScript's `line`
    /// and `column` (1-based), as near as the map knows; `None` when it knows nothing.
    ///
    /// The nearest mapping at or before the position (on the same compiled line, or an
    /// earlier one); else the first on that line after it.
    #[must_use]
    pub fn source_position(&self, line: u32, column: u32) -> Option<(u32, u32)> {
        let key = (line, column, u32::MAX, u32::MAX);
        let after = self.map.partition_point(|m| *m <= key);
        let before = after.checked_sub(1).and_then(|i| self.map.get(i));
        match before {
            Some(&(_, _, l, c)) => Some((l, c)),
            None => self
                .map
                .first()
                .filter(|m| m.0 == line)
                .map(|&(_, _, l, c)| (l, c)),
        }
    }
}
