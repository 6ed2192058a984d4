//! `sec-default policy show`: what the security default reads from the managed policy
//! (SPEC §2), as [`admin::policy_view`] puts it.

use crate::out;
use admin::exit::{
    BAD_INPUT as EXIT_BAD_INPUT, OK as EXIT_OK, POLICY_UNREADABLE as EXIT_POLICY_UNREADABLE,
};
use admin::inputs::PolicySource;
use admin::policy_view::{render, view};
use admin::source::{first_line, TempFolder};
use admin::CommandError;
use policy::ManagedLocation;

/// Runs `policy show` on the policy `source` names: the folder `--managed` names, the
/// example embedded in the binary (`--example`), or the platform folder; returns the
/// exit code (0; 2 for a folder that does not exist; 3 for a policy that cannot be
/// read, SPEC §2.1).
pub(crate) fn run(source: &PolicySource, json: bool) -> u8 {
    // The example written out for the command's run, with `--example`.
    let mut temp = None;
    let (location, kind) = match source {
        PolicySource::Embedded => match TempFolder::example() {
            Ok(t) => (
                ManagedLocation::Explicit(temp.insert(t).path().to_path_buf()),
                "embedded",
            ),
            Err(m) => {
                return out::fail(
                    "policy show",
                    &CommandError::new(None, m.to_string(), EXIT_BAD_INPUT),
                    json,
                )
            }
        },
        PolicySource::Folder(dir) if dir.exists() && !dir.is_dir() => {
            // As `audit` and `test` read it: a --managed that names a file is bad input.
            let err = CommandError::new(
                Some(dir),
                "the managed folder given is not a folder",
                EXIT_BAD_INPUT,
            );
            return out::fail("policy show", &err, json);
        }
        PolicySource::Folder(dir) => (ManagedLocation::Explicit(dir.clone()), "folder"),
        PolicySource::Platform(_) => (ManagedLocation::Platform, "platform"),
    };
    match policy::read_policy(&location) {
        Ok(p) => {
            let mut view = view(&location, &p);
            if kind == "embedded" {
                view.source.kind = kind.to_owned();
                view.source.description = first_line(kind, &location.folder(), true);
                view.folder = "(the example embedded in this binary)".to_owned();
                view.source.folder = None;
            }
            out::report("policy show", json, &view, || render(&view), EXIT_OK)
        }
        Err(e) => {
            let err = CommandError::from_policy(&e);
            if err.exit_code == EXIT_POLICY_UNREADABLE {
                out::say(
                    "policy show",
                    "a policy that cannot be read counts as a policy in force: \
                     the security default is seated and refuses what the policy would guard (fail closed)",
                );
            }
            out::fail("policy show", &err, json)
        }
    }
}
