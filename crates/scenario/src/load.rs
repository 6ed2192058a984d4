//! Loading scenario files (SCENARIOS.md "Running": a file that is not a valid scenario
//! is an error naming the file, the JSON pointer and what was expected).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::error::FormatError;
use crate::format::{PolicySpec, Scenario, ScenarioList, SEC_DEFAULT_ID};

/// One scenario as loaded, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedScenario {
    /// The file it was read from (as given or as found walking a folder).
    pub file: PathBuf,
    /// Its index within `"scenarios"`; `None` when the file holds one scenario object.
    pub index: Option<usize>,
    /// The scenario.
    pub scenario: Scenario,
}

impl LoadedScenario {
    /// The JSON pointer of the scenario within its file: `""` or `/scenarios/<index>`.
    #[must_use]
    pub fn pointer(&self) -> String {
        match self.index {
            Some(i) => format!("/scenarios/{i}"),
            None => String::new(),
        }
    }
}

/// Renders a `serde_path_to_error` path as a JSON pointer (`/steps/2/expect`); `""`
/// for the root.
#[must_use]
pub fn pointer_of(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
            serde_path_to_error::Segment::Map { key } => {
                policy::pointer::push_key(&mut out, key);
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    out
}

/// The events whose core answer the engine always computes (SCENARIOS.md "Events"): a
/// step's `core` is bad input there.
const COMPUTED: &[&str] = &[
    "tool.check",
    "tool.use",
    "settings.read",
    "tool.list",
    "plugin.register",
    "env.get",
    "env.set",
    "tool.register",
];

/// Loads every scenario of one file.
///
/// The file holds one scenario object, or `{"scenarios": [...]}` (an object with a
/// `scenarios` key is the list form; any other key beside it is an error).
///
/// # Errors
///
/// [`FormatError::NotFound`] / [`FormatError::Io`] when the file cannot be read;
/// [`FormatError::Syntax`] (line:column) when it is not JSON;
/// [`FormatError::Invalid`] (JSON pointer + what was expected) when it is not a valid
/// scenario: unknown keys, bad values, unknown behaviours, tiers, modes or expectation
/// operators, a `$dir` that does not exist, duplicate plugin ids, a listed
/// `cc-plugin-sec-default@builtin`.
pub fn load_file(path: &Path) -> Result<Vec<LoadedScenario>, FormatError> {
    // Bounded and non-blocking, as every file the project reads (SPEC §2.1): a FIFO or a
    // device named like a scenario is refused, never read.
    let io = |source: std::io::Error| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = policy::json::read_bounded(path).map_err(|e| match e {
        policy::json::BoundedReadError::NotFound => FormatError::NotFound {
            path: path.to_path_buf(),
        },
        policy::json::BoundedReadError::Io(source) => io(source),
        other => io(std::io::Error::other(other.to_string())),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text ({e})"),
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    load_str(path, text)
}

/// Loads every scenario of a file's text; `file` is used for messages and to resolve
/// `$dir`.
///
/// # Errors
///
/// As [`load_file`], except for reading.
pub fn load_str(file: &Path, text: &str) -> Result<Vec<LoadedScenario>, FormatError> {
    // First pass: plain JSON, for syntax errors and to tell the two forms apart.
    let value: Value = serde_json::from_str(text).map_err(|e| FormatError::Syntax {
        file: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: policy::json::message_of(&e),
    })?;
    let is_list = match &value {
        Value::Object(map) => map.contains_key("scenarios"),
        other => {
            return Err(FormatError::Invalid {
                file: file.to_path_buf(),
                pointer: String::new(),
                message: format!(
                    "expected a scenario object or {{\"scenarios\": [...]}}, found {}",
                    crate::format::kind_of(other)
                ),
                location: None,
            })
        }
    };
    // Second pass: typed, from the text, so errors carry a pointer and a location.
    let loaded: Vec<LoadedScenario> = if is_list {
        let list: ScenarioList = typed(file, text)?;
        list.scenarios
            .into_iter()
            .enumerate()
            .map(|(i, scenario)| LoadedScenario {
                file: file.to_path_buf(),
                index: Some(i),
                scenario,
            })
            .collect()
    } else {
        let scenario: Scenario = typed(file, text)?;
        vec![LoadedScenario {
            file: file.to_path_buf(),
            index: None,
            scenario,
        }]
    };
    for l in &loaded {
        validate(l)?;
    }
    Ok(loaded)
}

fn typed<T: for<'de> Deserialize<'de>>(file: &Path, text: &str) -> Result<T, FormatError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    let parsed = result.map_err(|e| {
        let pointer = pointer_of(e.path());
        let inner = e.into_inner();
        let location = (inner.line() != 0).then(|| (inner.line(), inner.column()));
        FormatError::Invalid {
            file: file.to_path_buf(),
            pointer,
            message: policy::json::message_of(&inner),
            location,
        }
    })?;
    de.end().map_err(|e| FormatError::Syntax {
        file: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: policy::json::message_of(&e),
    })?;
    Ok(parsed)
}

/// Checks made after parsing: `$dir` exists, plugin ids are unique and never the
/// security default's own.
fn validate(loaded: &LoadedScenario) -> Result<(), FormatError> {
    let base = loaded.pointer();
    let invalid = |pointer: String, message: String| FormatError::Invalid {
        file: loaded.file.clone(),
        pointer,
        message,
        location: None,
    };
    let scenario = &loaded.scenario;
    if let PolicySpec::Dir(dir) = &scenario.policy {
        let resolved = scenario
            .policy
            .resolved_dir(&loaded.file)
            .unwrap_or_else(|| dir.clone());
        if !resolved.is_dir() {
            return Err(invalid(
                format!("{base}/policy/$dir"),
                format!(
                    "managed folder {} does not exist (it is resolved relative to the scenario file)",
                    resolved.display()
                ),
            ));
        }
    }
    let events = session::catalogue();
    let catalogue = "an event of SPEC §1.5 (tool.check, env.set, classic.<Event>, ...)";
    for (i, plugin) in scenario.plugins.iter().enumerate() {
        for (j, hook) in plugin.hooks.iter().enumerate() {
            if !events.pattern_is_declared(&hook.on) {
                return Err(invalid(
                    format!("{base}/plugins/{i}/hooks/{j}/on"),
                    format!(
                        "unknown event {:?}, expected {catalogue} or a prefix.* pattern",
                        hook.on
                    ),
                ));
            }
        }
    }
    for (i, step) in scenario.steps.iter().enumerate() {
        if let crate::format::Step::Raise(r) = step {
            // SCENARIOS.md: these are always computed by the engine; a `core` there would
            // let a scenario pass while proving nothing.
            if r.core.is_some() && COMPUTED.contains(&r.raise.as_str()) {
                return Err(invalid(
                    format!("{base}/steps/{i}/core"),
                    format!(
                        "{} is always computed by the engine: `core` cannot stand in for its answer",
                        r.raise
                    ),
                ));
            }
            if r.raise != "tool.use" && !events.is_declared(&r.raise) {
                return Err(invalid(
                    format!("{base}/steps/{i}/raise"),
                    format!(
                        "unknown event {:?}, expected {catalogue} or tool.use",
                        r.raise
                    ),
                ));
            }
            if matches!(r.raise.as_str(), "tool.check" | "tool.use")
                && !r
                    .event
                    .get("tool")
                    .is_some_and(serde_json::Value::is_string)
            {
                return Err(invalid(
                    format!("{base}/steps/{i}/event/tool"),
                    "expected the tool's name, a string (tool.check and tool.use ask about a tool)"
                        .to_owned(),
                ));
            }
        }
    }
    for (i, plugin) in scenario.plugins.iter().enumerate() {
        if plugin.path.is_some() && !plugin.hooks.is_empty() {
            return Err(invalid(
                format!("{base}/plugins/{i}/path"),
                "a plugin has hooks or path, never both (SCENARIOS.md \"Mods\")".to_owned(),
            ));
        }
        if plugin.path.is_none() && plugin.options.is_some() {
            return Err(invalid(
                format!("{base}/plugins/{i}/options"),
                "options configure a mod: give path with them (SCENARIOS.md \"Mods\")".to_owned(),
            ));
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, plugin) in scenario.plugins.iter().enumerate() {
        let pointer = format!("{base}/plugins/{i}/id");
        if plugin.id.is_empty() {
            return Err(invalid(
                pointer,
                "expected a plugin id, found an empty string".to_owned(),
            ));
        }
        if plugin.id == SEC_DEFAULT_ID {
            return Err(invalid(
                pointer,
                format!("{SEC_DEFAULT_ID} is not listed: \"seated\" places it"),
            ));
        }
        if let Some(first) = seen.insert(plugin.id.as_str(), i) {
            return Err(invalid(
                pointer,
                format!(
                    "plugin id {:?} is already used by {base}/plugins/{first}",
                    plugin.id
                ),
            ));
        }
    }
    Ok(())
}

/// Loads every scenario of the files and folders given, in order.
///
/// A folder is walked recursively and its `*.json` files are loaded in sorted path
/// order; a file given explicitly is loaded whatever its extension.
///
/// # Errors
///
/// [`FormatError::NotFound`] for a path that does not exist, [`FormatError::Io`] for a
/// folder that cannot be read, and the first error of [`load_file`].
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<LoadedScenario>, FormatError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = fs::metadata(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                FormatError::NotFound { path: path.clone() }
            } else {
                FormatError::Io {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        if meta.is_dir() {
            for file in scenario_files(path)? {
                out.extend(load_file(&file)?);
            }
        } else {
            out.extend(load_file(path)?);
        }
    }
    Ok(out)
}

/// Collects the `*.json` files under `dir`, recursively.
///
/// # Errors
///
/// [`FormatError::Io`] when a folder cannot be listed.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, FormatError> {
    let mut files = Vec::new();
    walk(dir, &mut files, &mut Vec::new())?;
    files.sort();
    Ok(files)
}

/// `visiting` holds the canonical folders on the way down, so a symbolic link that
/// loops back is not followed again.
fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    visiting: &mut Vec<PathBuf>,
) -> Result<(), FormatError> {
    let io = |source| FormatError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let canonical = fs::canonicalize(dir).map_err(io)?;
    if visiting.contains(&canonical) {
        return Ok(());
    }
    visiting.push(canonical);
    for entry in fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let meta = fs::metadata(&path).map_err(|source| FormatError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            walk(&path, files, visiting)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    visiting.pop();
    Ok(())
}
