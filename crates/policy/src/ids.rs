//! Plugin ids: `<name>@<marketplace>`, compared NFC then lower case.

use unicode_normalization::UnicodeNormalization;

/// The security default's own plugin id, the key its options live under in
/// `pluginConfigs`.
///
/// SPEC §2.3
pub const SEC_DEFAULT_ID: &str = "cc-plugin-sec-default@builtin";

/// A plugin id split at its **last** `@`: `@scope/name@npm` has name
/// `@scope/name` and marketplace `npm`.
///
/// SPEC §2.2
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PluginId {
    /// Everything before the last `@` (never empty).
    pub name: String,
    /// Everything after the last `@` (may be empty for `name@`).
    pub marketplace: String,
}

impl PluginId {
    /// Splits `id` at its last `@`. Returns `None` when there is no `@` or
    /// the name before it is empty (`"foo"`, `"@npm"`).
    ///
    /// SPEC §2.2
    pub fn parse(id: &str) -> Option<PluginId> {
        let (name, marketplace) = id.rsplit_once('@')?;
        if name.is_empty() {
            return None;
        }
        Some(PluginId {
            name: name.to_owned(),
            marketplace: marketplace.to_owned(),
        })
    }
}

/// The name part of a plugin id: everything before its **last** `@` (`""` for
/// `@acme`, the whole id when it has no `@`).
///
/// SPEC §2.2
pub fn id_name(id: &str) -> &str {
    id.rsplit_once('@').map_or(id, |(name, _)| name)
}

/// Whether `id` is a `--plugin-dir` id, `<name>@inline`, in any letter case.
///
/// SPEC §3.4 (never vouched for), §6 "Loading"
pub fn is_inline_id(id: &str) -> bool {
    id.rsplit_once('@')
        .is_some_and(|(_, marketplace)| id_key(marketplace) == "inline")
}

/// The comparison key of an id (or any name compared the same way): Unicode
/// NFC, then lower case.
///
/// SPEC §2.2
pub fn id_key(id: &str) -> String {
    id.nfc().collect::<String>().to_lowercase()
}

/// Whether two ids name the same plugin as the engine compares them
/// ([`id_key`] of both equal).
///
/// SPEC §2.2
pub fn ids_equal(a: &str, b: &str) -> bool {
    a == b || id_key(a) == id_key(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_splits_at_the_last_at() {
        assert_eq!(
            PluginId::parse("@scope/name@npm"),
            Some(PluginId {
                name: "@scope/name".into(),
                marketplace: "npm".into()
            })
        );
        assert_eq!(
            PluginId::parse("yes-man@community"),
            Some(PluginId {
                name: "yes-man".into(),
                marketplace: "community".into()
            })
        );
        assert_eq!(
            PluginId::parse("a@b@c").map(|p| p.name),
            Some("a@b".to_owned())
        );
        assert_eq!(
            PluginId::parse("name@").map(|p| p.marketplace),
            Some(String::new())
        );
        assert_eq!(PluginId::parse("no-marketplace"), None);
        assert_eq!(PluginId::parse("@npm"), None);
        assert_eq!(PluginId::parse(""), None);
        assert_eq!(PluginId::parse("@"), None);
    }

    #[test]
    fn ids_compare_nfc_then_lower_case() {
        // "é" precomposed vs "e" + combining acute
        let nfc = "caf\u{e9}@market";
        let nfd = "cafe\u{301}@market";
        assert_ne!(nfc, nfd);
        assert!(ids_equal(nfc, nfd));
        assert!(ids_equal("CAF\u{c9}@Market", nfd));
        assert!(ids_equal(SEC_DEFAULT_ID, "CC-Plugin-Sec-Default@BuiltIn"));
        assert!(!ids_equal("a@b", "a@c"));
        assert_eq!(id_key("Cafe\u{301}@X"), "caf\u{e9}@x");
    }
}
