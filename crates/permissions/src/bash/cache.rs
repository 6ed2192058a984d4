//! The parse cache: [`parse_command_cached`] memoizes whole parses in a bounded LRU of
//! [`MEMO_CAPACITY`] entries keyed by the command string and shared by the process
//! (SPEC §4 "Compound shell commands").

use super::analysis::parse_command_in;
use super::expand::ShellContext;
use super::parts::ParsedCommand;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// How many parses [`parse_command_cached`] keeps.
pub const MEMO_CAPACITY: usize = 1024;

/// [`parse_command`](super::parse_command), memoized by the command string in a bounded LRU of
/// [`MEMO_CAPACITY`] entries shared by the process (SPEC §4 "Compound shell
/// commands").
#[must_use]
pub fn parse_command_cached(command: &str) -> Arc<ParsedCommand> {
    parse_command_cached_in(command, &ShellContext::default())
}

/// [`parse_command_in`], memoized by the command string and what expansion reads of
/// the session (working and home folders, environment). A parse whose expansion
/// looked at the file system (a glob) is not kept: the next check sees the file
/// system as it then stands (SPEC §4 "globs against the file system as it stands").
#[must_use]
pub fn parse_command_cached_in(command: &str, ctx: &ShellContext) -> Arc<ParsedCommand> {
    static MEMO: OnceLock<Mutex<Lru>> = OnceLock::new();
    let memo = MEMO.get_or_init(|| Mutex::new(Lru::new(MEMO_CAPACITY)));
    let mut key = ctx.key();
    key.push('\u{1}');
    key.push_str(command);
    if let Ok(mut m) = memo.lock() {
        if let Some(hit) = m.get(&key) {
            return hit;
        }
    }
    let parsed = Arc::new(parse_command_in(command, ctx));
    if !parsed.looked_at_files {
        if let Ok(mut m) = memo.lock() {
            m.put(key, Arc::clone(&parsed));
        }
    }
    parsed
}

/// A small least-recently-used map: entries stamped with a use counter, the oldest
/// evicted first.
struct Lru {
    capacity: usize,
    tick: u64,
    map: HashMap<String, (Arc<ParsedCommand>, u64)>,
    order: BTreeMap<u64, String>,
}

impl Lru {
    fn new(capacity: usize) -> Self {
        Lru {
            capacity: capacity.max(1),
            tick: 0,
            map: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    fn get(&mut self, key: &str) -> Option<Arc<ParsedCommand>> {
        self.tick += 1;
        let tick = self.tick;
        let (value, stamp) = self.map.get_mut(key)?;
        self.order.remove(stamp);
        *stamp = tick;
        self.order.insert(tick, key.to_owned());
        Some(Arc::clone(value))
    }

    fn put(&mut self, key: String, value: Arc<ParsedCommand>) {
        self.tick += 1;
        if let Some((_, old)) = self.map.remove(&key) {
            self.order.remove(&old);
        }
        while self.map.len() >= self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.map.remove(&oldest);
        }
        self.order.insert(self.tick, key.clone());
        self.map.insert(key, (value, self.tick));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bash::parse_command;

    #[test]
    fn the_memo_is_bounded() {
        let mut lru = Lru::new(2);
        for k in ["a", "b", "c"] {
            lru.put(k.to_owned(), Arc::new(parse_command(k)));
        }
        assert!(lru.get("a").is_none());
        assert!(lru.get("b").is_some());
        lru.put("d".to_owned(), Arc::new(parse_command("d")));
        assert!(lru.get("b").is_some());
        assert!(lru.get("c").is_none());
        let a = parse_command_cached("git status && rm x");
        let b = parse_command_cached("git status && rm x");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a, parse_command("git status && rm x"));
    }
}
