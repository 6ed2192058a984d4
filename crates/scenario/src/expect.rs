//! Expectations on a step's answer (SCENARIOS.md "Expectations (`expect`)").
//!
//! An `expect` is `"$held"`, `"$unchanged"` (each as the whole `expect`), or an object
//! whose plain keys are matched against the answer ([`match_value`]) and whose
//! `$`-keys are `$log` ([`match_log`]), `$ran` / `$not_ran` ([`match_ran`]) and
//! `$error` ([`match_answer`]). Any other `$`-operator is rejected when the file is
//! loaded.
//!
//! Answer patterns:
//!
//! - a field given must be present and match: objects match as subsets,
//!   recursively; arrays element by element, with the same length; other values
//!   must be equal (numbers by value: `1` matches `1.0`);
//! - `{"$contains": "text"}`: the value is a string containing `text`;
//! - `"$absent"`: the field is missing; `"$any"`: present, any value;
//! - `{"$not": X}`: the value does not match `X` (absent counts as not matching).
//!
//! `$held` and `$unchanged` compare with parallel sessions: that is the runner's work;
//! this module only parses them.
#![expect(
    clippy::result_large_err,
    reason = "a Mismatch carries the expected and actual values the runner prints; it is built once per failed step"
)]

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use crate::format::{fail_at_value, kind_of, seq_with};

/// Operators allowed at the top of an `expect` object.
pub const EXPECT_OPERATORS: &[&str] = &["$log", "$ran", "$not_ran", "$error"];
/// Operators allowed inside answer patterns.
pub const PATTERN_OPERATORS: &[&str] = &["$contains", "$not", "$absent", "$any"];

/// A step's expectation (SCENARIOS.md "Expectations").
///
/// Shape: `"$held"` | `"$unchanged"` | `{field: pattern, ..., "$log"?, "$ran"?,
/// "$not_ran"?, "$error"?}`.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per step, built once at load; boxing would only obscure matching on it"
)]
pub enum Expectation {
    /// `"$held"`: compared with a session without `user`-tier hooks (SPEC §5
    /// invariants 1 and 2).
    Held,
    /// `"$unchanged"`: compared with a session with sec-default unseated (SPEC §5
    /// invariant 7).
    Unchanged,
    /// An object of patterns and operators.
    Match(MatchSpec),
}

/// The object form of an expectation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatchSpec {
    /// The object minus its `$`-keys: a pattern matched against the answer with
    /// [`match_value`]. Always a JSON object (`{}` matches any object answer).
    pub fields: Value,
    /// `$log`: lines written during the step.
    pub log: Option<LogExpect>,
    /// `$ran`: ids of plugins whose hooks must have run during the step.
    pub ran: Option<Vec<String>>,
    /// `$not_ran`: ids of plugins whose hooks must not have run during the step.
    pub not_ran: Option<Vec<String>>,
    /// `$error`: the raise itself failed, with a message matching this pattern.
    pub error: Option<Value>,
}

/// `$log`: per channel, lines that must have been written (SCENARIOS.md `$log`).
///
/// Shape: `{"screen"?: [line, ...], "debug"?: [line, ...]}`; an empty list means
/// nothing at all was logged on that channel.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogExpect {
    /// Lines on screen.
    #[serde(default)]
    pub screen: Option<Vec<LineMatch>>,
    /// Lines in the debug log.
    #[serde(default)]
    pub debug: Option<Vec<LineMatch>>,
}

impl LogExpect {
    /// The expected items of a channel, if that channel is given.
    #[must_use]
    pub fn channel(&self, channel: Channel) -> Option<&[LineMatch]> {
        match channel {
            Channel::Screen => self.screen.as_deref(),
            Channel::Debug => self.debug.as_deref(),
        }
    }
}

/// One expected log line: `"exact text"` or `{"$contains": "text"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineMatch {
    /// The line is exactly this text.
    Exact(String),
    /// The line contains this text.
    Contains(String),
}

impl LineMatch {
    /// Whether `line` matches.
    #[must_use]
    pub fn matches(&self, line: &str) -> bool {
        match self {
            LineMatch::Exact(s) => line == s,
            LineMatch::Contains(s) => line.contains(s.as_str()),
        }
    }

    /// The item as the format writes it.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            LineMatch::Exact(s) => Value::String(s.clone()),
            LineMatch::Contains(s) => {
                let mut m = Map::new();
                m.insert("$contains".to_owned(), Value::String(s.clone()));
                Value::Object(m)
            }
        }
    }
}

impl<'de> Deserialize<'de> for LineMatch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "expected a log line: \"exact text\" or {\"$contains\": \"text\"}";
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(LineMatch::Exact(s)),
            Value::Object(m) if m.len() == 1 => match m.get("$contains") {
                Some(Value::String(s)) => Ok(LineMatch::Contains(s.clone())),
                Some(other) => Err(de::Error::custom(format!(
                    "\"$contains\" takes a string, found {}",
                    kind_of(other)
                ))),
                None => Err(de::Error::custom(EXPECTED)),
            },
            other => Err(de::Error::custom(format!(
                "{EXPECTED}, found {}",
                kind_of(&other)
            ))),
        }
    }
}

/// A log channel (SPEC §1.5 `ui.log` `{to: screen | debug}`): the engine's.
pub use fnhooks::Channel;

// ---------------------------------------------------------------------------------
// Parsing

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Expectation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "an expectation: an object of answer fields, \"$held\" or \"$unchanged\"",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Expectation, E> {
                match s {
                    "$held" => Ok(Expectation::Held),
                    "$unchanged" => Ok(Expectation::Unchanged),
                    other => Err(E::custom(format!(
                        "expected an object of answer fields, \"$held\" or \"$unchanged\", found the string {other:?}"
                    ))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expectation, A::Error> {
                let mut spec = MatchSpec::default();
                let mut fields = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    let dup = match key.as_str() {
                        "$log" => spec.log.is_some(),
                        "$ran" => spec.ran.is_some(),
                        "$not_ran" => spec.not_ran.is_some(),
                        "$error" => spec.error.is_some(),
                        _ => fields.contains_key(&key),
                    };
                    if dup {
                        return fail_at_value(&mut map, format!("duplicate key {key:?}"));
                    }
                    match key.as_str() {
                        "$log" => spec.log = Some(map.next_value()?),
                        "$ran" => spec.ran = Some(map.next_value()?),
                        "$not_ran" => spec.not_ran = Some(map.next_value()?),
                        "$error" => spec.error = Some(map.next_value_seed(PatternSeed)?),
                        k if k.starts_with('$') => {
                            return fail_at_value(
                                &mut map,
                                format!(
                                    "unknown expectation operator {k:?}, expected one of {} or an answer field",
                                    EXPECT_OPERATORS.join(", ")
                                ),
                            )
                        }
                        _ => {
                            let v = map.next_value_seed(PatternSeed)?;
                            fields.insert(key, v);
                        }
                    }
                }
                spec.fields = Value::Object(fields);
                Ok(Expectation::Match(spec))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Whether a string looks like an operator (`$` then lowercase letters and `_`), so a
/// mistyped `"$absnet"` is an error rather than a literal.
fn looks_like_operator(s: &str) -> bool {
    s.strip_prefix('$').is_some_and(|rest| {
        !rest.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    })
}

/// Deserializes an answer pattern into a [`Value`], rejecting unknown operators with
/// the JSON pointer of the offending value.
pub(crate) struct PatternSeed;

impl<'de> DeserializeSeed<'de> for PatternSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(PatternVisitor)
    }
}

struct PatternVisitor;

impl<'de> Visitor<'de> for PatternVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an answer pattern")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.visit_string(v.to_owned())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        if looks_like_operator(&v) && v != "$absent" && v != "$any" {
            if v == "$held" || v == "$unchanged" {
                return Err(E::custom(format!(
                    "{v:?} is only allowed as the whole expect"
                )));
            }
            return Err(E::custom(format!(
                "unknown operator {v:?}, expected \"$absent\", \"$any\", {{\"$contains\": ...}} or {{\"$not\": ...}}"
            )));
        }
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(PatternVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        seq_with(seq, || PatternSeed).map(Value::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut operator: Option<String> = None;
        while let Some(key) = map.next_key::<String>()? {
            if let Some(op) = &operator {
                return fail_at_value(
                    &mut map,
                    format!("{op:?} takes no other keys: write {{{op:?}: ...}} alone"),
                );
            }
            if key.starts_with('$') {
                if !out.is_empty() {
                    return fail_at_value(
                        &mut map,
                        format!("{key:?} takes no other keys: write {{{key:?}: ...}} alone"),
                    );
                }
                match key.as_str() {
                    "$contains" => {
                        let text: Value = map.next_value_seed(ContainsSeed)?;
                        out.insert(key.clone(), text);
                    }
                    "$not" => {
                        let inner = map.next_value_seed(PatternSeed)?;
                        out.insert(key.clone(), inner);
                    }
                    other => {
                        return fail_at_value(
                            &mut map,
                            format!(
                                "unknown operator {other:?}, expected {{\"$contains\": ...}} or {{\"$not\": ...}}"
                            ),
                        )
                    }
                }
                operator = Some(key);
                continue;
            }
            if out.contains_key(&key) {
                return fail_at_value(&mut map, format!("duplicate key {key:?}"));
            }
            let v = map.next_value_seed(PatternSeed)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// The argument of `$contains`: a string.
struct ContainsSeed;

impl<'de> DeserializeSeed<'de> for ContainsSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match Value::deserialize(deserializer)? {
            v @ Value::String(_) => Ok(v),
            other => Err(de::Error::custom(format!(
                "\"$contains\" takes a string, found {}",
                kind_of(&other)
            ))),
        }
    }
}

/// Checks that a JSON value is a valid answer pattern (no unknown operators).
///
/// # Errors
///
/// The message and the JSON pointer (relative to `pattern`) of the first invalid part.
pub fn validate_pattern(pattern: &Value) -> Result<(), (String, String)> {
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(pattern, &mut track);
    match PatternSeed.deserialize(de) {
        Ok(_) => Ok(()),
        Err(e) => Err((crate::load::pointer_of(&track.path()), e.to_string())),
    }
}

impl Expectation {
    /// Parses an `expect` value (for expectations built in code; files go through
    /// [`crate::load_file`]).
    ///
    /// # Errors
    ///
    /// `(pointer, message)`: where in `value` and what was wrong.
    pub fn from_value(value: &Value) -> Result<Expectation, (String, String)> {
        let mut track = serde_path_to_error::Track::new();
        let de = serde_path_to_error::Deserializer::new(value, &mut track);
        match Expectation::deserialize(de) {
            Ok(e) => Ok(e),
            Err(e) => Err((crate::load::pointer_of(&track.path()), e.to_string())),
        }
    }
}

// ---------------------------------------------------------------------------------
// Matching

/// Why an answer did not meet its expectation.
///
/// Display: `at /rule: expected {"$contains":"rm"}, found "Bash(curl:*)": does not contain "rm"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// JSON pointer into the answer (`""` for the answer itself); `$log`, `$ran`,
    /// `$not_ran` and `$error` mismatches point at `/$log/screen`, `/$ran`, ...
    pub pointer: String,
    /// The pattern that did not match.
    pub expected: Value,
    /// What was there (`None`: absent).
    pub actual: Option<Value>,
    /// Why, in words.
    pub why: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "the answer"
        } else {
            self.pointer.as_str()
        };
        write!(f, "at {at}: expected {}, found ", self.expected)?;
        match &self.actual {
            Some(v) => write!(f, "{v}")?,
            None => f.write_str("nothing (absent)")?,
        }
        write!(f, ": {}", self.why)
    }
}

impl std::error::Error for Mismatch {}

fn mismatch(pointer: &str, expected: &Value, actual: Option<&Value>, why: String) -> Mismatch {
    Mismatch {
        pointer: pointer.to_owned(),
        expected: expected.clone(),
        actual: actual.cloned(),
        why,
    }
}

/// Matches an answer (or one field of it, `None` when absent) against a pattern.
///
/// Objects match as subsets, recursively; arrays element by element with the same
/// length; `{"$contains": t}`, `"$absent"`, `"$any"`, `{"$not": X}` as the module
/// documentation says; other values must be equal (numbers compared by value).
///
/// # Errors
///
/// The first [`Mismatch`], its pointer relative to `actual`.
pub fn match_value(expected: &Value, actual: Option<&Value>) -> Result<(), Mismatch> {
    let mut pointer = String::new();
    match_at(&mut pointer, expected, actual)
}

fn operator(expected: &Value) -> Option<(&str, &Value)> {
    match expected {
        Value::Object(m) if m.len() == 1 => m
            .iter()
            .next()
            .filter(|(k, _)| *k == "$contains" || *k == "$not")
            .map(|(k, v)| (k.as_str(), v)),
        _ => None,
    }
}

fn match_at(
    pointer: &mut String,
    expected: &Value,
    actual: Option<&Value>,
) -> Result<(), Mismatch> {
    match expected {
        Value::String(s) if s == "$absent" => {
            return match actual {
                None => Ok(()),
                Some(_) => Err(mismatch(
                    pointer,
                    expected,
                    actual,
                    "must be absent".to_owned(),
                )),
            };
        }
        Value::String(s) if s == "$any" => {
            return match actual {
                Some(_) => Ok(()),
                None => Err(mismatch(
                    pointer,
                    expected,
                    actual,
                    "must be present".to_owned(),
                )),
            };
        }
        _ => {}
    }
    if let Some(("$not", inner)) = operator(expected) {
        return match match_at(&mut pointer.clone(), inner, actual) {
            Ok(()) => Err(mismatch(
                pointer,
                expected,
                actual,
                format!("must not match {inner}"),
            )),
            Err(_) => Ok(()),
        };
    }
    let Some(actual_value) = actual else {
        return Err(mismatch(pointer, expected, actual, "missing".to_owned()));
    };
    if let Some(("$contains", text)) = operator(expected) {
        let Some(needle) = text.as_str() else {
            return Err(mismatch(
                pointer,
                expected,
                actual,
                "invalid pattern: \"$contains\" takes a string".to_owned(),
            ));
        };
        return match actual_value {
            Value::String(s) if s.contains(needle) => Ok(()),
            Value::String(_) => Err(mismatch(
                pointer,
                expected,
                actual,
                format!("does not contain {needle:?}"),
            )),
            other => Err(mismatch(
                pointer,
                expected,
                actual,
                format!("expected a string, found {}", kind_of(other)),
            )),
        };
    }
    match (expected, actual_value) {
        (Value::Object(exp), Value::Object(act)) => {
            for (key, sub) in exp {
                let len = pointer.len();
                policy::pointer::push_key(pointer, key);
                let r = match_at(pointer, sub, act.get(key));
                pointer.truncate(len);
                r?;
            }
            Ok(())
        }
        (Value::Array(exp), Value::Array(act)) => {
            if exp.len() != act.len() {
                return Err(mismatch(
                    pointer,
                    expected,
                    actual,
                    format!("expected {} elements, found {}", exp.len(), act.len()),
                ));
            }
            for (i, (sub, a)) in exp.iter().zip(act).enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                let r = match_at(pointer, sub, Some(a));
                pointer.truncate(len);
                r?;
            }
            Ok(())
        }
        (Value::Object(_) | Value::Array(_), other) => Err(mismatch(
            pointer,
            expected,
            actual,
            format!("expected {}, found {}", kind_of(expected), kind_of(other)),
        )),
        (Value::Number(a), Value::Number(b)) => {
            if a == b || (a.as_f64().is_some() && a.as_f64() == b.as_f64()) {
                Ok(())
            } else {
                Err(mismatch(pointer, expected, actual, "not equal".to_owned()))
            }
        }
        (e, a) if e == a => Ok(()),
        _ => Err(mismatch(pointer, expected, actual, "not equal".to_owned())),
    }
}

/// Matches the outcome of a raise against a [`MatchSpec`]'s `fields` and `$error`.
///
/// `outcome` is the answer, or the message of the raise's own failure. With `$error`
/// given, the raise must have failed and its message match the pattern (pointer
/// `/$error`); without it, the raise must have answered and the answer match `fields`.
///
/// # Errors
///
/// The first [`Mismatch`].
pub fn match_answer(spec: &MatchSpec, outcome: Result<&Value, &str>) -> Result<(), Mismatch> {
    match (&spec.error, outcome) {
        (Some(pattern), Err(message)) => {
            let msg = Value::String(message.to_owned());
            let mut pointer = "/$error".to_owned();
            match_at(&mut pointer, pattern, Some(&msg))
        }
        (Some(pattern), Ok(answer)) => Err(mismatch(
            "/$error",
            pattern,
            Some(answer),
            "the raise was expected to fail, but it answered".to_owned(),
        )),
        (None, Err(message)) => Err(mismatch(
            "",
            &spec.fields,
            None,
            format!("the raise failed: {message}"),
        )),
        (None, Ok(answer)) => match_value(&spec.fields, Some(answer)),
    }
}

/// Matches the lines logged during a step against `$log`.
///
/// For each channel given, every item must match a *distinct* line on that channel,
/// in any order (a maximum bipartite matching, so the order of items never matters);
/// other lines may be there too, except that an empty list means nothing at all was
/// logged on that channel.
///
/// # Errors
///
/// A [`Mismatch`] at `/$log/<channel>` listing the items no distinct line matched;
/// `actual` holds the lines of that channel.
pub fn match_log(expect: &LogExpect, lines: &[(Channel, String)]) -> Result<(), Mismatch> {
    for channel in [Channel::Screen, Channel::Debug] {
        let Some(items) = expect.channel(channel) else {
            continue;
        };
        let on: Vec<&str> = lines
            .iter()
            .filter(|(c, _)| *c == channel)
            .map(|(_, l)| l.as_str())
            .collect();
        let pointer = format!("/$log/{channel}");
        let expected = Value::Array(items.iter().map(LineMatch::to_value).collect());
        let actual = Value::Array(on.iter().map(|l| Value::String((*l).to_owned())).collect());
        if items.is_empty() {
            if on.is_empty() {
                continue;
            }
            return Err(mismatch(
                &pointer,
                &expected,
                Some(&actual),
                format!(
                    "expected nothing logged on {channel}, found {} line(s)",
                    on.len()
                ),
            ));
        }
        let unmatched = unmatched_items(items, &on);
        if !unmatched.is_empty() {
            let list: Vec<String> = unmatched
                .iter()
                .filter_map(|&i| items.get(i))
                .map(|item| item.to_value().to_string())
                .collect();
            return Err(mismatch(
                &pointer,
                &expected,
                Some(&actual),
                format!("no distinct {channel} line matches {}", list.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Indices of items left unmatched by a maximum matching of items to distinct lines
/// (Kuhn's augmenting paths).
fn unmatched_items(items: &[LineMatch], lines: &[&str]) -> Vec<usize> {
    let adj: Vec<Vec<usize>> = items
        .iter()
        .map(|item| {
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| item.matches(l))
                .map(|(j, _)| j)
                .collect()
        })
        .collect();
    let mut line_owner: Vec<Option<usize>> = vec![None; lines.len()];
    let mut unmatched = Vec::new();
    for i in 0..items.len() {
        let mut visited = vec![false; lines.len()];
        if !augment(i, &adj, &mut line_owner, &mut visited) {
            unmatched.push(i);
        }
    }
    unmatched
}

fn augment(
    item: usize,
    adj: &[Vec<usize>],
    line_owner: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    let Some(candidates) = adj.get(item) else {
        return false;
    };
    for &line in candidates {
        match visited.get_mut(line) {
            Some(seen) if !*seen => *seen = true,
            _ => continue,
        }
        let owner = line_owner.get(line).copied().flatten();
        let free = match owner {
            None => true,
            Some(other) => augment(other, adj, line_owner, visited),
        };
        if free {
            if let Some(slot) = line_owner.get_mut(line) {
                *slot = Some(item);
            }
            return true;
        }
    }
    false
}

/// Matches `$ran` and `$not_ran` against the ids of the plugins whose hooks ran
/// during the step.
///
/// `$ran`: every id listed ran (others may have run too). `$not_ran`: no id listed ran.
///
/// # Errors
///
/// A [`Mismatch`] at `/$ran` or `/$not_ran` naming the ids; `actual` is `ran`.
pub fn match_ran(spec: &MatchSpec, ran: &[String]) -> Result<(), Mismatch> {
    let actual = Value::Array(ran.iter().cloned().map(Value::String).collect());
    if let Some(must) = &spec.ran {
        let missing: Vec<&str> = must
            .iter()
            .filter(|id| !ran.contains(id))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(mismatch(
                "/$ran",
                &Value::Array(must.iter().cloned().map(Value::String).collect()),
                Some(&actual),
                format!("did not run: {}", missing.join(", ")),
            ));
        }
    }
    if let Some(must_not) = &spec.not_ran {
        let present: Vec<&str> = must_not
            .iter()
            .filter(|id| ran.contains(id))
            .map(String::as_str)
            .collect();
        if !present.is_empty() {
            return Err(mismatch(
                "/$not_ran",
                &Value::Array(must_not.iter().cloned().map(Value::String).collect()),
                Some(&actual),
                format!("ran: {}", present.join(", ")),
            ));
        }
    }
    Ok(())
}

/// Replaces `$CWD` and `$HOME` in every string value of `value` (object keys are left
/// alone) with the session's real working and home folders (SCENARIOS.md "Files").
#[must_use]
pub fn substitute(value: &Value, cwd: &str, home: &str) -> Value {
    match value {
        Value::String(s) => Value::String(substitute_str(s, cwd, home)),
        Value::Array(a) => Value::Array(a.iter().map(|v| substitute(v, cwd, home)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), substitute(v, cwd, home)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Replaces `$CWD` and `$HOME` in one string.
#[must_use]
pub fn substitute_str(s: &str, cwd: &str, home: &str) -> String {
    if s.contains('$') {
        s.replace("$CWD", cwd).replace("$HOME", home)
    } else {
        s.to_owned()
    }
}

impl MatchSpec {
    /// This spec with `$CWD` and `$HOME` replaced in every string (fields, `$error`,
    /// log lines; plugin ids are left alone).
    #[must_use]
    pub fn substituted(&self, cwd: &str, home: &str) -> MatchSpec {
        let line = |l: &LineMatch| match l {
            LineMatch::Exact(s) => LineMatch::Exact(substitute_str(s, cwd, home)),
            LineMatch::Contains(s) => LineMatch::Contains(substitute_str(s, cwd, home)),
        };
        let lines = |v: &Option<Vec<LineMatch>>| v.as_ref().map(|v| v.iter().map(line).collect());
        MatchSpec {
            fields: substitute(&self.fields, cwd, home),
            log: self.log.as_ref().map(|l| LogExpect {
                screen: lines(&l.screen),
                debug: lines(&l.debug),
            }),
            ran: self.ran.clone(),
            not_ran: self.not_ran.clone(),
            error: self.error.as_ref().map(|e| substitute(e, cwd, home)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn ok(expected: Value, actual: Value) {
        if let Err(m) = match_value(&expected, Some(&actual)) {
            panic!("{expected} should match {actual}: {m}");
        }
    }

    fn no(expected: Value, actual: Value) -> Mismatch {
        match match_value(&expected, Some(&actual)) {
            Ok(()) => panic!("{expected} should not match {actual}"),
            Err(m) => m,
        }
    }

    #[test]
    fn objects_match_as_subsets_recursively() {
        ok(json!({}), json!({"a": 1}));
        ok(
            json!({"a": {"b": 1}}),
            json!({"a": {"b": 1, "c": 2}, "d": 3}),
        );
        let m = no(json!({"a": {"b": 1}}), json!({"a": {"b": 2}}));
        assert_eq!(m.pointer, "/a/b");
        assert_eq!(m.actual, Some(json!(2)));
        let m = no(json!({"a": {"b": 1}}), json!({"a": {}}));
        assert_eq!(m.pointer, "/a/b");
        assert_eq!(m.actual, None);
        assert_eq!(m.why, "missing");
        let m = no(json!({"a": {"b": 1}}), json!({"a": "x"}));
        assert_eq!(m.pointer, "/a");
    }

    #[test]
    fn arrays_match_element_by_element_with_the_same_length() {
        ok(json!([1, {"a": 1}]), json!([1, {"a": 1, "b": 2}]));
        let m = no(json!([1]), json!([1, 2]));
        assert_eq!(m.pointer, "");
        assert_eq!(m.why, "expected 1 elements, found 2");
        no(json!([1, 2]), json!([2, 1]));
        let m = no(
            json!({"l": [1, {"x": "$absent"}]}),
            json!({"l": [1, {"x": 0}]}),
        );
        assert_eq!(m.pointer, "/l/1/x");
    }

    #[test]
    fn other_values_must_be_equal() {
        ok(json!("deny"), json!("deny"));
        ok(json!(1), json!(1.0));
        ok(json!(null), json!(null));
        no(json!("deny"), json!("ask"));
        no(json!(true), json!("true"));
        no(json!(null), json!(false));
    }

    #[test]
    fn contains() {
        ok(
            json!({"deny": {"$contains": "LD_"}}),
            json!({"deny": "LD_PRELOAD is pinned"}),
        );
        ok(json!({"deny": {"$contains": ""}}), json!({"deny": ""}));
        let m = no(json!({"deny": {"$contains": "x"}}), json!({"deny": "abc"}));
        assert_eq!(m.why, "does not contain \"x\"");
        let m = no(json!({"deny": {"$contains": ""}}), json!({"deny": 3}));
        assert_eq!(m.why, "expected a string, found a number");
        assert!(match_value(&json!({"deny": {"$contains": ""}}), Some(&json!({}))).is_err());
    }

    #[test]
    fn absent_and_any() {
        ok(json!({"deny": "$absent"}), json!({}));
        no(json!({"deny": "$absent"}), json!({"deny": null}));
        ok(json!({"deny": "$any"}), json!({"deny": null}));
        let m = no(json!({"deny": "$any"}), json!({}));
        assert_eq!(m.why, "must be present");
    }

    #[test]
    fn not() {
        ok(json!({"reason": {"$not": "x"}}), json!({"reason": "y"}));
        // Absent counts as not matching.
        ok(json!({"reason": {"$not": "x"}}), json!({}));
        ok(json!({"reason": {"$not": {"$contains": "x"}}}), json!({}));
        let m = no(json!({"reason": {"$not": "x"}}), json!({"reason": "x"}));
        assert_eq!(m.pointer, "/reason");
        // $not $absent: present.
        ok(json!({"a": {"$not": "$absent"}}), json!({"a": 1}));
        no(json!({"a": {"$not": "$absent"}}), json!({}));
        // Subset inside $not.
        no(
            json!({"v": {"$not": {"decision": "deny"}}}),
            json!({"v": {"decision": "deny", "rule": "r"}}),
        );
        ok(
            json!({"v": {"$not": {"decision": "deny"}}}),
            json!({"v": {"decision": "ask"}}),
        );
    }

    #[test]
    fn deny_and_refuse_are_ordinary_fields() {
        ok(json!({"refuse": "no"}), json!({"refuse": "no"}));
        no(json!({"deny": "no"}), json!({"refuse": "no"}));
    }

    #[test]
    fn mismatch_display() {
        let m = no(
            json!({"rule": {"$contains": "rm"}}),
            json!({"rule": "Bash(curl:*)"}),
        );
        assert_eq!(
            m.to_string(),
            r#"at /rule: expected {"$contains":"rm"}, found "Bash(curl:*)": does not contain "rm""#
        );
        let m = match_value(&json!({"a": 1}), None).unwrap_err();
        assert_eq!(
            m.to_string(),
            r#"at the answer: expected {"a":1}, found nothing (absent): missing"#
        );
    }

    fn spec(value: Value) -> MatchSpec {
        match Expectation::from_value(&value).unwrap() {
            Expectation::Match(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parse_expectations() {
        assert_eq!(
            Expectation::from_value(&json!("$held")).unwrap(),
            Expectation::Held
        );
        assert_eq!(
            Expectation::from_value(&json!("$unchanged")).unwrap(),
            Expectation::Unchanged
        );
        let s = spec(json!({
            "decision": "deny",
            "$log": {"screen": ["a", {"$contains": "b"}]},
            "$ran": ["x@y"], "$not_ran": ["z@y"], "$error": {"$contains": "boom"}
        }));
        assert_eq!(s.fields, json!({"decision": "deny"}));
        assert_eq!(
            s.log.unwrap().screen.unwrap(),
            vec![
                LineMatch::Exact("a".into()),
                LineMatch::Contains("b".into())
            ]
        );
        assert_eq!(s.ran.unwrap(), vec!["x@y".to_owned()]);
        assert_eq!(s.not_ran.unwrap(), vec!["z@y".to_owned()]);
        assert_eq!(s.error.unwrap(), json!({"$contains": "boom"}));
        let (pointer, message) = Expectation::from_value(&json!({"a": [{"$nto": 1}]})).unwrap_err();
        assert_eq!(pointer, "/a/0/$nto");
        assert!(message.contains("unknown operator"), "{message}");
        assert!(Expectation::from_value(&json!("$any")).is_err());
        assert!(Expectation::from_value(&json!(3)).is_err());
        // $CWD and $HOME are text, not operators.
        assert!(validate_pattern(&json!({"path": "$CWD/notes.txt", "h": "$HOME"})).is_ok());
        assert!(validate_pattern(&json!({"p": "$CDW"})).is_ok());
        assert!(validate_pattern(&json!({"p": "$nope"})).is_err());
    }

    #[test]
    fn answers_and_errors() {
        let s = spec(json!({"decision": "deny"}));
        assert!(match_answer(&s, Ok(&json!({"decision": "deny"}))).is_ok());
        assert!(match_answer(&s, Err("boom")).is_err());
        let s = spec(json!({"$error": {"$contains": "not listed"}}));
        assert!(match_answer(&s, Err("plugin x@y is not listed")).is_ok());
        let m = match_answer(&s, Err("other")).unwrap_err();
        assert_eq!(m.pointer, "/$error");
        let m = match_answer(&s, Ok(&json!({}))).unwrap_err();
        assert_eq!(m.pointer, "/$error");
        let s = spec(json!({"$error": "exact"}));
        assert!(match_answer(&s, Err("exact")).is_ok());
        assert!(match_answer(&s, Err("exact!")).is_err());
    }

    fn lines(items: &[(Channel, &str)]) -> Vec<(Channel, String)> {
        items.iter().map(|(c, l)| (*c, (*l).to_owned())).collect()
    }

    fn log(screen: Option<Vec<LineMatch>>, debug: Option<Vec<LineMatch>>) -> LogExpect {
        LogExpect { screen, debug }
    }

    #[test]
    fn log_items_match_distinct_lines_in_any_order() {
        use Channel::{Debug, Screen};
        let got = lines(&[
            (Screen, "held: deny stands"),
            (Screen, "held"),
            (Debug, "x"),
        ]);
        // Greedy would give the first item "held: deny stands" and leave "held" unmatched.
        let e = log(
            Some(vec![
                LineMatch::Contains("held".into()),
                LineMatch::Contains("deny".into()),
            ]),
            None,
        );
        assert!(match_log(&e, &got).is_ok());
        // Two items, one line: not enough distinct lines.
        let e = log(
            Some(vec![
                LineMatch::Contains("deny".into()),
                LineMatch::Contains("stands".into()),
            ]),
            None,
        );
        let m = match_log(&e, &got).unwrap_err();
        assert_eq!(m.pointer, "/$log/screen");
        assert!(
            m.why.contains("no distinct screen line matches"),
            "{}",
            m.why
        );
        // Exact items.
        let e = log(
            Some(vec![LineMatch::Exact("held".into())]),
            Some(vec![LineMatch::Exact("x".into())]),
        );
        assert!(match_log(&e, &got).is_ok());
        let e = log(None, Some(vec![LineMatch::Exact("held".into())]));
        assert!(match_log(&e, &got).is_err());
        // Other lines may be there; channels not given are not checked.
        assert!(match_log(&log(None, None), &got).is_ok());
    }

    #[test]
    fn empty_log_list_means_nothing_logged() {
        use Channel::{Debug, Screen};
        let got = lines(&[(Debug, "x")]);
        assert!(match_log(&log(Some(vec![]), None), &got).is_ok());
        let m = match_log(&log(None, Some(vec![])), &got).unwrap_err();
        assert_eq!(m.pointer, "/$log/debug");
        assert!(match_log(&log(Some(vec![]), Some(vec![])), &lines(&[])).is_ok());
        assert!(match_log(&log(Some(vec![]), None), &lines(&[(Screen, "")])).is_err());
    }

    #[test]
    fn ran_and_not_ran() {
        let s = spec(json!({"$ran": ["a@m"], "$not_ran": ["b@m"]}));
        assert!(match_ran(&s, &["a@m".to_owned(), "c@m".to_owned()]).is_ok());
        let m = match_ran(&s, &["c@m".to_owned()]).unwrap_err();
        assert_eq!(m.pointer, "/$ran");
        let m = match_ran(&s, &["a@m".to_owned(), "b@m".to_owned()]).unwrap_err();
        assert_eq!(m.pointer, "/$not_ran");
        assert!(match_ran(&spec(json!({})), &[]).is_ok());
    }

    #[test]
    fn substitution() {
        let s =
            spec(json!({"p": "$CWD/a", "q": {"$contains": "$HOME"}, "$log": {"debug": ["$CWD"]}}));
        let t = s.substituted("/tmp/w", "/tmp/h");
        assert_eq!(
            t.fields,
            json!({"p": "/tmp/w/a", "q": {"$contains": "/tmp/h"}})
        );
        assert_eq!(
            t.log.unwrap().debug.unwrap(),
            vec![LineMatch::Exact("/tmp/w".into())]
        );
    }
}
