//! Claude Code session files (README "Transcript line format"): the typed view of a
//! line (only what the replay reads; the parser skips the rest) and the calls, results
//! and session changes it gives.

use super::{keep, Item, Reader, Seen, CLAUDE_TYPES, MAX_SESSIONS_PER_FILE};
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::fmt;
use std::io::BufRead;
use std::sync::Arc;

/// Reading Claude Code lines.
impl<R: BufRead> Reader<R> {
    /// The calls and results of one Claude Code line, appended to `out`; why not, when
    /// the line is not one.
    pub(super) fn claude(&mut self, l: ClaudeLine<'_>, out: &mut Vec<Item>) -> Result<(), String> {
        let kind = l.kind.ok_or("a JSON object with no \"type\"")?;
        if !CLAUDE_TYPES.contains(&&*kind) {
            return Err(format!(
                "a line of type {kind:?}, never seen in Claude Code transcripts; skipped"
            ));
        }
        if let Some(id) = l.session_id.as_deref() {
            self.switch_session(id);
        }
        keep(&mut self.cwd, l.cwd.as_deref());
        keep(&mut self.mode, l.permission_mode.as_deref());
        if let Some(a) = l.agent_id.as_deref() {
            keep(&mut self.agent, Some(a));
        } else if l.is_sidechain {
            self.agent = Some(Arc::from("sidechain"));
        } else {
            self.agent = None;
        }
        let Some(message) = l.message else {
            return Ok(());
        };
        for block in message.content.0 {
            match &*block.kind {
                "tool_use" if kind == "assistant" => {
                    let id = block.id.unwrap_or_default();
                    let tool = block.name.ok_or("a tool_use block with no \"name\"")?;
                    let input = block.input.unwrap_or_else(|| json!({}));
                    out.push(Item::Call(Box::new(self.call(id, tool, input))));
                }
                "tool_result" => {
                    let id = block.tool_use_id.map(Cow::into_owned).unwrap_or_default();
                    let seen = if block.is_error {
                        let raw = |r: Option<&RawValue>, text: &str| {
                            r.is_some_and(|r| {
                                memchr::memmem::find(r.get().as_bytes(), text.as_bytes()).is_some()
                            })
                        };
                        if raw(l.tool_use_result, "User rejected")
                            || raw(block.content, "doesn't want to proceed")
                        {
                            Seen::Rejected
                        } else if raw(block.content, "interrupted by user")
                            || raw(l.tool_use_result, "interrupted by user")
                        {
                            Seen::Interrupted
                        } else {
                            Seen::Failed
                        }
                    } else {
                        Seen::Ran
                    };
                    out.push(Item::Result { id, seen });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Makes `id` the session the following lines are of, in its own mode and working
    /// folder as last seen (none, for a session not seen before).
    fn switch_session(&mut self, id: &str) {
        if self.session.as_deref() == Some(id) {
            return;
        }
        if let Some(old) = self.session.take() {
            if self.modes.len() < MAX_SESSIONS_PER_FILE || self.modes.contains_key(&old) {
                self.modes.insert(old, (self.mode.take(), self.cwd.take()));
            }
        }
        let id: Arc<str> = Arc::from(id);
        (self.mode, self.cwd) = self.modes.get(&id).cloned().unwrap_or_default();
        self.agent = None;
        self.session = Some(id);
    }
}

// Strings are borrowed from the line where they hold no escape, and results' texts
// are kept as raw JSON (scanned, never decoded) and looked into only for an error.

#[derive(Deserialize)]
pub(super) struct ClaudeLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "permissionMode", borrow)]
    permission_mode: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "agentId", borrow)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    content: Blocks<'a>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Value>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: bool,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// A message's content blocks (a plain-text content has none).
#[derive(Default)]
struct Blocks<'a>(Vec<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Blocks<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message's content")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks<'a>, A::Error> {
                let mut out = Vec::new();
                // Blocks are objects; anything else in the array is skipped (a block of
                // a shape never seen is no reason to lose the line's calls).
                while let Some(b) = seq.next_element::<BlockOrSkip>()? {
                    if let Some(b) = b.0 {
                        out.push(b);
                    }
                }
                Ok(Blocks(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _map: A) -> Result<Blocks<'a>, A::Error> {
                // The API's content is text or a list of blocks; an object is neither,
                // and a call inside it must not pass unseen.
                Err(de::Error::custom(
                    "message.content is an object, neither text nor a list of blocks",
                ))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A content element: a block object, or anything else (skipped).
struct BlockOrSkip<'a>(Option<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for BlockOrSkip<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BlockOrSkip<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<BlockOrSkip<'a>, A::Error> {
                Block::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|b| BlockOrSkip(Some(b)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlockOrSkip<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockOrSkip(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}
