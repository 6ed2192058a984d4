//! How the engine spells a name inside a tool's name (SPEC §1.7).

/// Spells `name` as the engine spells a name inside a tool's name: every character
/// (Unicode scalar value) outside `[A-Za-z0-9_-]` becomes `_`; nothing is normalized
/// and the case is kept (SPEC §1.7, §3.4.1).
///
/// ```
/// assert_eq!(events::spell("corp tools/ä"), "corp_tools__");
/// ```
#[must_use]
pub fn spell(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The full name of a tool a plugin registers at run time: `mcp__<plugin>__<tool>`,
/// each part spelled by [`spell`], `<plugin>` the registering plugin's manifest name
/// (SPEC §1.7).
///
/// ```
/// assert_eq!(events::registered_tool_name("notes", "add"), "mcp__notes__add");
/// ```
#[must_use]
pub fn registered_tool_name(plugin: &str, tool: &str) -> String {
    format!("mcp__{}__{}", spell(plugin), spell(tool))
}
