//! Typed hooks and a typed core: the rest of the chain as an event type sees it
//! ([`TypedNext`]), and a core written one handler per event ([`Router`]), over the
//! JSON the chain carries (SPEC §1.1, §1.5).

use crate::chain::{Answer, ChainError, Channel, Core, Cx, Next, TraceEntry};
use crate::event::{Event, FailureKind, HookFailure, Origin};
use crate::{EventType, Reply, Tier};
use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

/// `e`'s fields as `E`'s input, or why not (kind `error`).
pub(crate) fn read_input<E: EventType>(e: &Event) -> Result<E::Input, HookFailure> {
    E::Input::deserialize(&*e.fields).map_err(|why| {
        HookFailure::new(
            FailureKind::Error,
            format!(
                "the event is not a {} of its declared shape: {why}",
                E::NAME
            ),
        )
    })
}

/// A typed value as JSON, or why not (kind `invalid-answer`).
pub(crate) fn to_answer<T: Serialize>(out: &T) -> Result<Value, HookFailure> {
    serde_json::to_value(out)
        .map_err(|why| HookFailure::new(FailureKind::InvalidAnswer, why.to_string()))
}

fn read_output<E: EventType>(answer: &Reply) -> Result<E::Output, ChainError> {
    E::Output::deserialize(&**answer).map_err(|why| {
        ChainError::new(
            FailureKind::InvalidAnswer,
            format!("the chain's answer is not a {} result: {why}", E::NAME),
        )
    })
}

fn input_event<E: EventType>(input: &E::Input) -> Result<Event, ChainError> {
    match serde_json::to_value(input) {
        Ok(Value::Object(fields)) => Ok(Event::new(E::NAME, fields)),
        Ok(other) => Err(ChainError::new(
            FailureKind::Error,
            format!("a {} input must be a JSON object, not {other}", E::NAME),
        )),
        Err(why) => Err(ChainError::new(FailureKind::Error, why.to_string())),
    }
}

/// The rest of the chain as a typed hook of `E` sees it (SPEC §1.1): [`Next`] with
/// inputs and answers of `E`'s types.
pub struct TypedNext<E: EventType> {
    next: Next,
    event: PhantomData<fn() -> E>,
}

impl<E: EventType> Clone for TypedNext<E> {
    fn clone(&self) -> Self {
        TypedNext::new(self.next.clone())
    }
}

impl<E: EventType> fmt::Debug for TypedNext<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedNext")
            .field("event", &E::NAME)
            .field("next", &self.next)
            .finish()
    }
}

impl<E: EventType> TypedNext<E> {
    pub(crate) fn new(next: Next) -> Self {
        TypedNext {
            next,
            event: PhantomData,
        }
    }

    /// Runs the rest of the chain with `input` ([`Next::run`]) and reads its answer as
    /// `E`'s output.
    ///
    /// # Errors
    ///
    /// The chain's error, a pin failure (kind `pin`), or an answer not of `E`'s output
    /// type (kind `invalid-answer`).
    pub async fn run(&self, input: &E::Input) -> Result<E::Output, ChainError> {
        let answer = self.next.run(input_event::<E>(input)?).await?;
        read_output::<E>(&answer)
    }

    /// Runs the rest of the chain from `tier` on ([`Next::to`]), typed.
    ///
    /// # Errors
    ///
    /// As [`TypedNext::run`], and the forbidden jump of [`Next::to`].
    pub async fn to(&self, input: &E::Input, tier: Tier) -> Result<E::Output, ChainError> {
        let answer = self.next.to(input_event::<E>(input)?, tier).await?;
        read_output::<E>(&answer)
    }

    /// Who raised the event ([`Next::origin`]).
    #[must_use]
    pub fn origin(&self) -> &Origin {
        self.next.origin()
    }

    /// What each link beneath did in the last run ([`Next::trace`]).
    #[must_use]
    pub fn trace(&self) -> Vec<TraceEntry> {
        self.next.trace()
    }

    /// Whether the hook has handed the event on ([`Next::called`]).
    #[must_use]
    pub fn called(&self) -> bool {
        self.next.called()
    }

    /// The untyped [`Next`] beneath.
    #[must_use]
    pub fn untyped(&self) -> &Next {
        &self.next
    }
}

type Handler = Arc<dyn Fn(Cx, Event) -> BoxFuture<'static, Answer> + Send + Sync>;

/// A core written one handler per event (SPEC §1.5), the way `axum`'s `Router` routes
/// requests: a typed handler for each declared event ([`Router::on`]), untyped ones for
/// an event name or a `prefix.*` family ([`Router::on_json`]), and a fallback for every
/// other event (by default, the event's fields echoed back). Engine lines go to `log`.
///
/// ```
/// use fnhooks::{Catalogue, ChainError, Cx, Engine, Event, EventType, Pins, Router};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize)] struct Name { name: String }
/// # #[derive(Serialize, Deserialize)] struct Text { text: String }
/// # struct Greet;
/// # impl EventType for Greet { const NAME: &'static str = "greet"; const PINS: Pins = Pins::NONE; type Input = Name; type Output = Text; }
/// let core = Router::new(|_channel, _line| {})
///     .on::<Greet, _, _>(|_cx: Cx, e: Name| async move { Ok::<_, ChainError>(Text { text: format!("hello {}", e.name) }) });
/// let engine = Engine::new(std::sync::Arc::new(core), Catalogue::new().event::<Greet>(), fnhooks::DEFAULT_HOOK_TIMEOUT);
/// let answer = engine.raise_blocking(Event::from_value("greet", serde_json::json!({"name": "ada"})));
/// assert_eq!(answer.unwrap()["text"], "hello ada");
/// ```
pub struct Router {
    exact: HashMap<String, Handler>,
    prefixes: Vec<(String, Handler)>,
    fallback: Handler,
    log: Arc<dyn Fn(Channel, String) + Send + Sync>,
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.exact.keys().collect();
        names.sort();
        let prefixes: Vec<&String> = self.prefixes.iter().map(|(p, _)| p).collect();
        f.debug_struct("Router")
            .field("events", &names)
            .field("prefixes", &prefixes)
            .finish_non_exhaustive()
    }
}

impl Router {
    /// A router with no handler: every event is answered by its own fields. Engine lines
    /// (SPEC §1.9) go to `log`.
    pub fn new(log: impl Fn(Channel, String) + Send + Sync + 'static) -> Self {
        Router {
            exact: HashMap::new(),
            prefixes: Vec::new(),
            fallback: Arc::new(|_cx, e: Event| {
                Box::pin(async move { Ok(Reply::new(e.into_value())) })
            }),
            log: Arc::new(log),
        }
    }

    /// This router with `handler` answering `E`. An event whose fields are not of `E`'s
    /// input shape is answered with an error (kind `error`) naming the event: the core
    /// never guesses a field.
    #[must_use]
    pub fn on<E, F, Fut>(mut self, handler: F) -> Self
    where
        E: EventType,
        F: Fn(Cx, E::Input) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<E::Output, ChainError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let route: Handler = Arc::new(move |cx, e| {
            let input = read_input::<E>(&e);
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let input =
                    input.map_err(|f| ChainError::new(f.kind, f.message.unwrap_or_default()))?;
                let out = handler(cx, input).await?;
                to_answer(&out)
                    .map(Reply::new)
                    .map_err(|f| ChainError::new(f.kind, f.message.unwrap_or_default()))
            })
        });
        self.exact.insert(E::NAME.to_owned(), route);
        self
    }

    /// This router with `handler` answering the events `pattern` names: an event name,
    /// or `prefix.*` for a family (the longest matching prefix wins; an exact name wins
    /// over every prefix). The handler answers a [`Reply`] (shared, no copy) or a
    /// [`serde_json::Value`].
    #[must_use]
    pub fn on_json<F, Fut, T>(mut self, pattern: &str, handler: F) -> Self
    where
        F: Fn(Cx, Event) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, ChainError>> + Send + 'static,
        T: Into<Reply> + 'static,
    {
        let route: Handler =
            Arc::new(move |cx, e| Box::pin(handler(cx, e).map(|r| r.map(Into::into))));
        match pattern.strip_suffix('*') {
            Some(prefix) => {
                self.prefixes.push((prefix.to_owned(), route));
                self.prefixes
                    .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
            }
            None => {
                self.exact.insert(pattern.to_owned(), route);
            }
        }
        self
    }

    /// This router with `handler` answering every event no other handler answers.
    #[must_use]
    pub fn fallback<F, Fut, T>(mut self, handler: F) -> Self
    where
        F: Fn(Cx, Event) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, ChainError>> + Send + 'static,
        T: Into<Reply> + 'static,
    {
        self.fallback = Arc::new(move |cx, e| Box::pin(handler(cx, e).map(|r| r.map(Into::into))));
        self
    }

    fn handler(&self, name: &str) -> &Handler {
        self.exact
            .get(name)
            .or_else(|| {
                self.prefixes
                    .iter()
                    .find(|(p, _)| name.starts_with(p.as_str()))
                    .map(|(_, h)| h)
            })
            .unwrap_or(&self.fallback)
    }
}

impl Core for Router {
    fn answer(&self, cx: Cx, event: Event) -> BoxFuture<'static, Answer> {
        (self.handler(&event.name))(cx, event)
    }

    fn engine_log(&self, channel: Channel, line: String) {
        (self.log)(channel, line);
    }
}
