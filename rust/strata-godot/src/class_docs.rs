//! The class reference (F1 help and inspector tooltips) that the extension hands to the editor.
//!
//! gdext's `register-docs` turns the `///` comments on classes, `#[var]`/`#[export]` fields and
//! `#[func]`s into class-reference XML and loads it at the editor init stage. `WorldPreset`'s
//! settings are ClassDB properties registered from the core field table
//! (`world_preset::register_field_properties`) and have no Rust field to comment, so their
//! `<member>` entries are written here from each `FieldSpec` (what it does, its unit, the
//! allowed values and the default: [`strata_core::preset::model::FieldSpec::help`]) and added to
//! the class's XML, which is then loaded again and replaces gdext's. The editor keeps a loaded
//! member's description for every ClassDB property of the same name, so the tooltips and F1
//! show it.
//!
//! `STRATA_CLASS_DOCS_DIR`: when set (by `cargo xtask test`'s class-reference check), every
//! class's XML is also written to `<dir>/<Class>.xml`, where a
//! `godot --doctool <root> --gdextension-docs` run merges it with ClassDB, so a member without a
//! description shows up.
//!
//! May use: `strata_core::preset::model`, gdext's docs registry.

use godot::prelude::*;
use godot::sys;
use strata_core::preset::model::{FIELDS, FieldKind};

/// The environment variable naming a folder for the class XML (see the module docs).
pub const DOCS_DIR_VAR: &str = "STRATA_CLASS_DOCS_DIR";

/// `text` escaped for XML text and attribute values.
fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One `<member>` per `WorldPreset` field, with the field's full help text.
pub fn world_preset_members_xml() -> String {
    FIELDS
        .iter()
        .map(|spec| {
            let ty = match spec.kind {
                FieldKind::Int { .. } | FieldKind::Enum { .. } => "int",
                FieldKind::Float { .. } => "float",
                FieldKind::Bool => "bool",
                FieldKind::Text => "String",
            };
            format!(
                r#"<member name="{}" type="{ty}" setter="set_field_at" getter="get_field_at" default="{}">{}</member>"#,
                spec.name,
                xml_escape(&spec.default_text()),
                xml_escape(&spec.help())
            )
        })
        .collect()
}

/// `class_xml` with `members` added to its `<members>` list.
fn with_members(class_xml: &str, members: &str) -> String {
    match class_xml.rfind("</members>") {
        Some(at) => format!("{}{members}{}", &class_xml[..at], &class_xml[at..]),
        None => class_xml.replacen("</class>", &format!("<members>{members}</members></class>"), 1),
    }
}

/// The name in `<class name="…"`.
fn class_name_of(class_xml: &str) -> Option<&str> {
    let rest = &class_xml[class_xml.find("<class name=\"")? + "<class name=\"".len()..];
    rest.split('"').next()
}

/// The class reference of every Strata class, as the editor gets it: gdext's XML, with the
/// field members added to `WorldPreset`'s.
pub fn class_reference() -> Vec<(String, String)> {
    godot::docs::__gather_xml_docs()
        .filter_map(|xml| {
            let name = class_name_of(&xml)?.to_string();
            let xml = if name == "WorldPreset" { with_members(&xml, &world_preset_members_xml()) } else { xml };
            Some((name, xml))
        })
        .collect()
}

/// Loads `WorldPreset`'s full class reference into the editor help (after gdext's, which it
/// replaces), and writes every class's XML to `STRATA_CLASS_DOCS_DIR` when that is set.
/// Called once at the editor init stage, on the main thread.
pub fn register() {
    let classes = class_reference();
    if let Some((_, xml)) = classes.iter().find(|(name, _)| name == "WorldPreset") {
        // SAFETY: the binding is initialised (editor stage) and this runs on the main thread;
        // the pointer and length describe valid UTF-8 that outlives the call.
        unsafe {
            sys::interface_fn!(editor_help_load_xml_from_utf8_chars_and_len)(
                xml.as_ptr() as *const std::ffi::c_char,
                xml.len() as i64,
            );
        }
    }
    let Some(dir) = std::env::var_os(DOCS_DIR_VAR) else { return };
    let dir = std::path::PathBuf::from(dir);
    for (name, xml) in &classes {
        let path = dir.join(format!("{name}.xml"));
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, xml)) {
            godot_error!("{DOCS_DIR_VAR}: could not write {}: {e}", path.display());
        }
    }
}
