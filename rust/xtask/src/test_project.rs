//! The Godot test project `tests/godot/`: the Godot test suite and the rendered checks run in it,
//! so the demo project `godot_project/` holds only what a user sees.
//!
//! It tests the addon and the demo's game scripts, which stay in `godot_project/`: [`prepare`]
//! links them into the test project (`addons`, `game`, `demo`, `demo2d`: relative symbolic
//! links, git-ignored), checks that the test project's `[input]` section (the actions the game
//! scripts read) is the demo's, and imports the test project. Call it after
//! [`crate::setup::prepare`], which builds and installs the extension into the demo's addon.

use crate::error::{Context, Error, Result};
use crate::extension;
use crate::godot_install::Godot;
use crate::paths;
use std::fs;
use std::path::Path;

/// Folders of `godot_project/` the test project links to, under the same names.
pub const LINKED: &[&str] = &["addons", "game", "demo", "demo2d"];

/// Folders the test project once linked that now live inside a linked one (`presets` moved into
/// the addon): a link of that name to `../../godot_project/NAME` is removed, anything else is kept.
const RETIRED_LINKS: &[&str] = &["presets"];

/// Links the demo's folders, checks the input map, imports the test project when needed.
pub fn prepare(godot: &Godot) -> Result<()> {
    let project = paths::godot_tests();
    link_demo(&project)?;
    check_input_map(&paths::godot_project().join("project.godot"), &project.join("project.godot"))?;
    let _lock = paths::lock_file(&paths::tools_dir().join("project.lock"))?;
    extension::import_project(godot, &project, false)?;
    Ok(())
}

/// Makes `project/NAME` a link to `../../godot_project/NAME` for every [`LINKED`] name. A link
/// pointing elsewhere is replaced; a real file or folder there is an error (never deleted).
fn link_demo(project: &Path) -> Result<()> {
    for name in LINKED {
        let link = project.join(name);
        let target = Path::new("../../godot_project").join(name);
        match fs::read_link(&link) {
            Ok(existing) if existing == target => continue,
            Ok(_) => {
                fs::remove_file(&link).with_context(|| format!("could not replace the link {}", link.display()))?
            }
            Err(_) if link.symlink_metadata().is_ok() => {
                return Err(Error::msg(format!("{} exists and is not a link to {}", link.display(), target.display()))
                    .hint(format!("the test project links godot_project/{name} there; move {} away", link.display())));
            }
            Err(_) => {}
        }
        std::os::unix::fs::symlink(&target, &link)
            .with_context(|| format!("could not link {} to {}", link.display(), target.display()))?;
    }
    for name in RETIRED_LINKS {
        let link = project.join(name);
        if fs::read_link(&link).is_ok_and(|t| t == Path::new("../../godot_project").join(name)) {
            fs::remove_file(&link).with_context(|| format!("could not remove the old link {}", link.display()))?;
        }
    }
    Ok(())
}

/// Fails unless the `[input]` sections of the two project files are the same.
fn check_input_map(demo: &Path, tests: &Path) -> Result<()> {
    let read = |p: &Path| fs::read_to_string(p).with_context(|| format!("could not read {}", p.display()));
    let (demo_text, tests_text) = (read(demo)?, read(tests)?);
    if input_section(&demo_text) != input_section(&tests_text) {
        return Err(Error::msg(format!(
            "the [input] section of {} differs from the demo's ({})",
            tests.display(),
            demo.display()
        ))
        .hint("copy the [input] section of godot_project/project.godot into tests/godot/project.godot"));
    }
    Ok(())
}

/// The lines of a `project.godot`'s `[input]` section (without the header and trailing blank
/// lines); empty when there is none.
fn input_section(text: &str) -> Vec<&str> {
    let mut lines = text.lines().skip_while(|l| l.trim() != "[input]");
    lines.next();
    let mut out: Vec<&str> = lines.take_while(|l| !l.starts_with('[')).collect();
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_project_enables_the_addons_editor_plugin() {
        let text = fs::read_to_string(paths::godot_project().join("project.godot")).unwrap();
        let section: Vec<&str> = text.lines().skip_while(|l| l.trim() != "[editor_plugins]").collect();
        assert!(
            section
                .iter()
                .take_while(|l| !l.starts_with("[input]"))
                .any(|l| l.starts_with("enabled=") && l.contains("\"res://addons/strata/plugin.cfg\"")),
            "godot_project/project.godot enables res://addons/strata/plugin.cfg under [editor_plugins]"
        );
    }

    #[test]
    fn input_sections() {
        let a = "config_version=5\n[application]\nx=1\n\n[input]\n\njump={\n\"events\": []\n}\n\n[rendering]\ny=2\n";
        let b = "[input]\n\njump={\n\"events\": []\n}\n";
        assert_eq!(input_section(a), vec!["", "jump={", "\"events\": []", "}"]);
        assert_eq!(input_section(a), input_section(b));
        assert!(input_section("[application]\nx=1\n").is_empty());
        assert_ne!(input_section(a), input_section("[input]\njump={\n}\n"));
    }

    #[test]
    fn the_test_project_has_the_demos_input_map() {
        check_input_map(&paths::godot_project().join("project.godot"), &paths::godot_tests().join("project.godot"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
