//! The names of the events of SPEC §1.5, and its families.

/// Every event of SPEC §1.5 named whole (besides the families of [`FAMILIES`]).
pub const CATALOGUE: &[&str] = &[
    TOOL_CHECK,
    TOOL_CALL,
    TOOL_REGISTER,
    TOOL_LIST,
    TOOL_DESCRIBE,
    COMMAND_DESCRIBE,
    AGENT_OFFER,
    AGENT_SPAWN,
    ENV_GET,
    ENV_SET,
    PLUGIN_REGISTER,
    SETTINGS_READ,
    UI_LOG,
    SESSION_APPEND,
    SESSION_COMPACT,
    PROMPT_SECTION,
    PROMPT_CONTEXT,
    PROMPT_ATTACHMENT,
    PROMPT_COMPOSE,
    PROMPT_SUBMIT,
    SKILL_PROMPT,
    ATTRIBUTION_TEXT,
    "command.run",
    "command.register",
    "command.list",
    "agent.register",
    "agent.list",
    "prompt.fill",
    "prompt.suggest",
    "prompt.edit",
    "prompt.read",
    "http.fetch",
    "process.run",
    "mcp.call",
    "engine.create",
];

/// The event families of SPEC §1.5 named by prefix (`classic.<Event>`, `turn.*`, ...).
pub const FAMILIES: &[&str] = &[
    "classic.", "turn.", "command.", "config.", "session.", "ui.", "fs.", "store.", "clock.",
    "model.", "audio.",
];

/// `tool.check`: the permission decision for a pinned question.
pub const TOOL_CHECK: &str = "tool.check";
/// `tool.call`: the model's tool call is about to run (rewrites belong here).
pub const TOOL_CALL: &str = "tool.call";
/// `tool.register`: a plugin registers a tool at run time.
pub const TOOL_REGISTER: &str = "tool.register";
/// `tool.list`: the list of tools given to the model.
pub const TOOL_LIST: &str = "tool.list";
/// `tool.describe`: a tool is described to the model.
pub const TOOL_DESCRIBE: &str = "tool.describe";
/// `command.describe`: a command is described to the model.
pub const COMMAND_DESCRIBE: &str = "command.describe";
/// `agent.offer`: an agent is offered.
pub const AGENT_OFFER: &str = "agent.offer";
/// `agent.spawn`: an agent is spawned.
pub const AGENT_SPAWN: &str = "agent.spawn";
/// `env.get`: a plugin reads an environment variable of the engine's children.
pub const ENV_GET: &str = "env.get";
/// `env.set`: a plugin sets or unsets an environment variable.
pub const ENV_SET: &str = "env.set";
/// `plugin.register`: a hooks module is admitted.
pub const PLUGIN_REGISTER: &str = "plugin.register";
/// `settings.read`: anyone reads settings.
pub const SETTINGS_READ: &str = "settings.read";
/// `ui.log`: a plugin or the engine writes a log line.
pub const UI_LOG: &str = "ui.log";
/// `session.append`: a row is appended to the conversation.
pub const SESSION_APPEND: &str = "session.append";
/// `session.compact`: a compaction is made.
pub const SESSION_COMPACT: &str = "session.compact";
/// `prompt.section`: one section of the system prompt.
pub const PROMPT_SECTION: &str = "prompt.section";
/// `prompt.context`: context gathered for the model.
pub const PROMPT_CONTEXT: &str = "prompt.context";
/// `prompt.attachment`: an attachment the engine injects.
pub const PROMPT_ATTACHMENT: &str = "prompt.attachment";
/// `prompt.compose`: the system prompt's list of sections.
pub const PROMPT_COMPOSE: &str = "prompt.compose";
/// `prompt.submit`: a person submits a prompt.
pub const PROMPT_SUBMIT: &str = "prompt.submit";
/// `skill.prompt`: a skill's body.
pub const SKILL_PROMPT: &str = "skill.prompt";
/// `attribution.text`: attribution text.
pub const ATTRIBUTION_TEXT: &str = "attribution.text";
