//! Why an id is skipped or its copy cannot be read: the reasons the loader puts in a
//! [`crate::Skipped`] line or a [`crate::Found::unreadable`]. Each
//! [`Display`](std::fmt::Display) form is the reason's text in that line.

use std::path::PathBuf;

/// Why a marketplace does not yield a plugin's folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FolderError {
    /// The marketplace's `marketplace.json` is missing.
    #[error("marketplace {marketplace:?} does not exist: {} is missing", file.display())]
    MarketplaceMissing {
        /// The marketplace's name.
        marketplace: String,
        /// Its `marketplace.json`.
        file: PathBuf,
    },
    /// `marketplace.json` is present but could not be read.
    #[error("{}: cannot read: {reason}", file.display())]
    Unreadable {
        /// The marketplace's `marketplace.json`.
        file: PathBuf,
        /// The opener's reason.
        reason: String,
    },
    /// `marketplace.json` is not JSON.
    #[error("{}:{line}:{column}: the marketplace is not JSON: {message}", file.display())]
    NotJson {
        /// The marketplace's `marketplace.json`.
        file: PathBuf,
        /// 1-based line of the error, as `serde_json` reports it.
        line: usize,
        /// 1-based column of the error, as `serde_json` reports it.
        column: usize,
        /// `serde_json`'s whole message (with its own position suffix).
        message: String,
    },
    /// The marketplace lists no plugin of that name.
    #[error("marketplace {marketplace:?} has no plugin named {name:?} ({})", file.display())]
    NoSuchPlugin {
        /// The marketplace's name.
        marketplace: String,
        /// The plugin's name.
        name: String,
        /// The marketplace's `marketplace.json`.
        file: PathBuf,
    },
    /// The plugin's relative source leads out of the marketplace's folder.
    #[error("marketplace {marketplace:?} places {name:?} outside its folder ({rel:?})")]
    Outside {
        /// The marketplace's name.
        marketplace: String,
        /// The plugin's name.
        name: String,
        /// The relative source, as written.
        rel: String,
    },
    /// The plugin's folder leads out of the marketplace's through a symbolic link.
    #[error(
        "marketplace {marketplace:?} places {name:?} outside its folder ({rel:?}, through a symbolic link)"
    )]
    OutsideByLink {
        /// The marketplace's name.
        marketplace: String,
        /// The plugin's name.
        name: String,
        /// The relative source, as written.
        rel: String,
    },
    /// A remote plugin's cached copy is missing.
    #[error("the cached copy of {name}@{marketplace} is missing ({})", cached.display())]
    CacheMissing {
        /// The plugin's name.
        name: String,
        /// The marketplace's name.
        marketplace: String,
        /// Where the copy should be.
        cached: PathBuf,
    },
    /// The plugin's entry has no `source` this loader reads.
    #[error("marketplace {marketplace:?} gives {name:?} no source")]
    NoSource {
        /// The marketplace's name.
        marketplace: String,
        /// The plugin's name.
        name: String,
    },
}

/// Why an id is not seated: the reason in its `Skipped` line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotSeated {
    /// An organization's id that managed `enabledPlugins` does not turn on with `true`.
    #[error("managed enabledPlugins does not turn it on with true")]
    NotTurnedOn,
    /// An id that is not `<name>@<marketplace>`.
    #[error("it is not <name>@<marketplace>")]
    NotAnId,
    /// An `@inline` id in settings (only `--plugin-dir` loads one).
    #[error("an @inline id is loaded with --plugin-dir only")]
    Inline,
    /// A `--plugin-dir` that is no folder.
    #[error("no such folder")]
    NoSuchFolder,
    /// An organization's id whose marketplace managed settings do not name.
    #[error("managed settings name no marketplace {marketplace:?}")]
    NoManagedMarketplace {
        /// The marketplace's name.
        marketplace: String,
    },
    /// A person's id whose marketplace no settings source names.
    #[error("no settings source names the marketplace {marketplace:?} (extraKnownMarketplaces)")]
    UnknownMarketplace {
        /// The marketplace's name.
        marketplace: String,
    },
    /// An organization's id whose marketplace is not a `directory` one.
    #[error("marketplace {marketplace:?} is not a directory marketplace read in place")]
    NotDirectory {
        /// The marketplace's name.
        marketplace: String,
    },
    /// A `directory` marketplace with no path.
    #[error("marketplace {marketplace:?} names no path")]
    NoPath {
        /// The marketplace's name.
        marketplace: String,
    },
    /// An organization's id that its marketplace holds only as a remote copy.
    #[error("marketplace {marketplace:?} holds it only as a remote copy")]
    RemoteOnly {
        /// The marketplace's name.
        marketplace: String,
    },
    /// An organization's plugin folder without a hooks module.
    #[error("{} holds no hooks module", folder.display())]
    NoHooksModule {
        /// The plugin's folder.
        folder: PathBuf,
    },
    /// A marketplace source that managed `strictKnownMarketplaces` does not list.
    #[error(
        "the source of marketplace {marketplace:?} ({kind}) is not in managed strictKnownMarketplaces"
    )]
    NotListed {
        /// The marketplace's name.
        marketplace: String,
        /// Its source's kind.
        kind: String,
    },
    /// A marketplace source that managed `blockedMarketplaces` lists.
    #[error(
        "the source of marketplace {marketplace:?} ({kind}) is in managed blockedMarketplaces"
    )]
    Blocked {
        /// The marketplace's name.
        marketplace: String,
        /// Its source's kind.
        kind: String,
    },
    /// A remote marketplace's cached copy is missing.
    #[error("the cached copy of marketplace {marketplace:?} is missing ({})", cached.display())]
    MarketplaceCacheMissing {
        /// The marketplace's name.
        marketplace: String,
        /// Where the copy should be.
        cached: PathBuf,
    },
    /// A marketplace source of a kind the loader does not read.
    #[error("marketplace {marketplace:?} has a source this loader does not read ({kind})")]
    UnknownSource {
        /// The marketplace's name.
        marketplace: String,
        /// Its source's kind.
        kind: String,
    },
    /// The plugin's folder could not be found in its marketplace.
    #[error("{0}")]
    Folder(#[from] FolderError),
    /// The plugin's folder itself is missing.
    #[error("its folder {} is missing", folder.display())]
    FolderMissing {
        /// The folder.
        folder: PathBuf,
    },
    /// The plugin's manifest could not be read.
    #[error("{0}")]
    Manifest(#[from] crate::ManifestError),
}
