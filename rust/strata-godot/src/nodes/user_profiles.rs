//! `StrataUserProfiles`: per-user settings, key bindings and preset libraries (meant as an autoload).
//!
//! Files live under `profiles_dir` (default `user://profiles`) in the layout of
//! [`strata_core::persist::profile`]: `<user>.toml` (settings and binding overrides) and
//! `<user>/presets/<name>.ron`. Bindings store only changes over the project's default input
//! map: the defaults are captured from `InputMap` when the node enters the tree (or on first use,
//! or on `capture_defaults()`); applying a profile restores every captured action to its
//! defaults and then applies the user's overrides, so switching users switches bindings at once.
//! Keys are stored by physical keycode. A `profiles_dir` inside a resource pack (an exported
//! game's `res://…`) is read through Godot's file access (users, profiles and presets load) and
//! is read-only: writes there are refused with a message. Every failure is a `push_error` with
//! the file, field and allowed values, readable again through `last_error()`; a bad profile
//! file is never rewritten.

use crate::base::errors::LastError;
use crate::base::files::{GodotFile, locate_dir, read_packed, writable_dir};
use crate::resources::world_preset::WorldPreset;
use godot::classes::{
    DirAccess, FileAccess, INode, InputEvent, InputEventJoypadButton, InputEventJoypadMotion, InputEventKey,
    InputEventMouseButton, InputMap, Node,
};
use godot::global::Error;
use godot::obj::EngineEnum;
use godot::prelude::*;
use strata_core::persist::profile::{
    InputDescriptor, Profile, ProfileError, ProfileStore, SettingValue, check_profile_len, preset_file_in_dir,
    profile_file_in_dir, profile_from_file_bytes, validate_name,
};
use strata_core::preset::error::PresetError;
use strata_core::preset::file::{check_preset_len, preset_from_file_bytes};

/// Users, their settings, key bindings (as overrides of the project's input map) and preset
/// libraries. Add it as an autoload; call `set_active_user()` to switch bindings and settings.
#[derive(GodotClass)]
#[class(base = Node, rename = StrataUserProfiles)]
pub struct UserProfiles {
    base: Base<Node>,
    /// Folder of the profile files: `res://`, `user://` or absolute. Default `user://profiles`.
    #[var]
    profiles_dir: GString,
    active: Option<String>,
    profile: Profile,
    /// The project's input map as captured: every action with its events.
    defaults: Option<Vec<(StringName, Vec<Gd<InputEvent>>)>>,
    last_error: LastError,
}

#[godot_api]
impl INode for UserProfiles {
    fn init(base: Base<Node>) -> Self {
        Self {
            base,
            profiles_dir: "user://profiles".into(),
            active: None,
            profile: Profile::default(),
            defaults: None,
            last_error: LastError::default(),
        }
    }

    fn ready(&mut self) {
        self.ensure_defaults();
    }
}

/// What `rebind()` accepts, for error messages.
const ALLOWED_EVENTS: &str = "InputEventKey (with a keycode), InputEventMouseButton (button 1..9), \
InputEventJoypadButton (button 0..127) or InputEventJoypadMotion (axis 0..15)";

/// An integer property of `event` read as a Variant: the typed getters convert to gdext's engine
/// enums and panic on values this binding does not know (a joypad button 50, a key code 0x1234),
/// while any int is a legal property value in Godot.
fn int_property(event: &Gd<InputEvent>, property: &str) -> i64 {
    event.get(property).try_to::<i64>().unwrap_or(0)
}

/// The descriptor of a supported input event (key by physical keycode, mouse button, joypad
/// button or axis direction), or why it is not supported (in words, naming the event class and
/// the value). Total: no engine enum conversion, so unknown button/axis/key values never panic.
pub(crate) fn descriptor_of(event: &Gd<InputEvent>) -> Result<InputDescriptor, String> {
    let class = event.get_class().to_string();
    let d = match class.as_str() {
        "InputEventKey" => {
            let mut code = int_property(event, "physical_keycode");
            if code == 0 {
                code = int_property(event, "keycode");
            }
            match u32::try_from(code) {
                Ok(physical) if physical > 0 => InputDescriptor::Key { physical },
                _ => {
                    return Err(format!(
                        "an InputEventKey with key code {code} (neither keycode nor physical_keycode set)"
                    ));
                }
            }
        }
        "InputEventMouseButton" => {
            let b = int_property(event, "button_index");
            match u32::try_from(b) {
                Ok(button) => InputDescriptor::MouseButton { button },
                Err(_) => return Err(format!("an InputEventMouseButton with button_index {b}")),
            }
        }
        "InputEventJoypadButton" => {
            let b = int_property(event, "button_index");
            match u32::try_from(b) {
                Ok(button) => InputDescriptor::JoyButton { button },
                Err(_) => return Err(format!("an InputEventJoypadButton with button_index {b}")),
            }
        }
        "InputEventJoypadMotion" => {
            let a = int_property(event, "axis");
            let value = event.get("axis_value").try_to::<f64>().unwrap_or(0.0);
            let direction = if value < 0.0 { -1.0 } else { 1.0 };
            match u32::try_from(a) {
                Ok(axis) => InputDescriptor::JoyAxis { axis, direction },
                Err(_) => return Err(format!("an InputEventJoypadMotion with axis {a}")),
            }
        }
        other => return Err(format!("an {other}")),
    };
    Ok(d)
}

/// A new input event for `d` (any int is a legal property value, so every descriptor has one;
/// the values are set through `set()` to stay clear of gdext's closed engine enums).
pub(crate) fn event_of(d: &InputDescriptor) -> Gd<InputEvent> {
    let mut e: Gd<InputEvent> = match *d {
        InputDescriptor::Key { .. } => InputEventKey::new_gd().upcast(),
        InputDescriptor::MouseButton { .. } => InputEventMouseButton::new_gd().upcast(),
        InputDescriptor::JoyButton { .. } => InputEventJoypadButton::new_gd().upcast(),
        InputDescriptor::JoyAxis { .. } => InputEventJoypadMotion::new_gd().upcast(),
    };
    match *d {
        InputDescriptor::Key { physical } => e.set("physical_keycode", &i64::from(physical).to_variant()),
        InputDescriptor::MouseButton { button } | InputDescriptor::JoyButton { button } => {
            e.set("button_index", &i64::from(button).to_variant())
        }
        InputDescriptor::JoyAxis { axis, direction } => {
            e.set("axis", &i64::from(axis).to_variant());
            e.set("axis_value", &f64::from(direction).to_variant());
        }
    }
    e
}

/// Where the profile files are read from.
enum ProfileFiles {
    /// A folder on disk (read and written by the core's store).
    Disk(ProfileStore),
    /// A folder inside a game's pack: read through Godot's file access, never written.
    Packed(PackedProfiles),
}

impl ProfileFiles {
    fn list_users(&self) -> Result<Vec<String>, ProfileError> {
        match self {
            ProfileFiles::Disk(store) => store.list_users(),
            ProfileFiles::Packed(packed) => Ok(packed.list(&packed.dir, "toml")),
        }
    }

    fn load(&self, user: &str) -> Result<Profile, ProfileError> {
        match self {
            ProfileFiles::Disk(store) => store.load(user),
            ProfileFiles::Packed(packed) => packed.load(user),
        }
    }

    fn list_presets(&self, user: &str) -> Result<Vec<String>, ProfileError> {
        match self {
            ProfileFiles::Disk(store) => store.list_presets(user),
            ProfileFiles::Packed(packed) => {
                validate_name("user", user)?;
                Ok(packed.list(&format!("{}/{user}/presets", packed.dir), "ron"))
            }
        }
    }

    fn load_preset(&self, user: &str, name: &str) -> Result<strata_core::WorldPreset, ProfileError> {
        match self {
            ProfileFiles::Disk(store) => store.load_preset(user, name),
            ProfileFiles::Packed(packed) => packed.load_preset(user, name),
        }
    }
}

/// A profiles folder inside a game's pack, in the core's layout, read through `FileAccess`.
struct PackedProfiles {
    /// Its Godot path, such as `res://profiles`.
    dir: String,
}

impl PackedProfiles {
    /// Stems of the files `*.ext` in `dir` with valid names, sorted (missing folder = none).
    fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let suffix = format!(".{ext}");
        let mut out: Vec<String> = DirAccess::get_files_at(dir)
            .as_slice()
            .iter()
            .filter_map(|f| f.to_string().strip_suffix(&suffix).map(str::to_string))
            .filter(|stem| validate_name("user", stem).is_ok())
            .collect();
        out.sort();
        out
    }

    fn load(&self, user: &str) -> Result<Profile, ProfileError> {
        let path = format!("{}/{}", self.dir, profile_file_in_dir(user)?);
        if !FileAccess::file_exists(&path) {
            return Err(ProfileError::NotFound { what: "user", name: user.into(), dir: self.dir.clone() });
        }
        let io = |error| ProfileError::Io { file: path.clone(), action: "read", error };
        let bytes = read_packed(&path, |len| check_profile_len(len, &path), io)?;
        profile_from_file_bytes(&bytes, &path)
    }

    fn load_preset(&self, user: &str, name: &str) -> Result<strata_core::WorldPreset, ProfileError> {
        let path = format!("{}/{}", self.dir, preset_file_in_dir(user, name)?);
        if !FileAccess::file_exists(&path) {
            let dir = format!("{}/{user}/presets", self.dir);
            return Err(ProfileError::NotFound { what: "preset", name: name.into(), dir });
        }
        let io = |error| PresetError::Io { source_name: path.clone(), action: "read", error };
        let bytes = read_packed(&path, |len| check_preset_len(len, &path), io)?;
        Ok(preset_from_file_bytes(&bytes, &path)?)
    }
}

fn profile_error_code(e: &ProfileError) -> Error {
    match e {
        ProfileError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => Error::ERR_FILE_NOT_FOUND,
        ProfileError::Io { action: "write", .. } => Error::ERR_FILE_CANT_WRITE,
        ProfileError::Io { .. } => Error::ERR_FILE_CANT_READ,
        ProfileError::Parse { .. } | ProfileError::NewerVersion { .. } => Error::ERR_PARSE_ERROR,
        ProfileError::Invalid { .. } | ProfileError::Field(_) => Error::ERR_INVALID_DATA,
        ProfileError::BadName { .. } => Error::ERR_INVALID_PARAMETER,
        ProfileError::NotFound { .. } => Error::ERR_DOES_NOT_EXIST,
        ProfileError::Exists { .. } | ProfileError::CaseCollision { .. } => Error::ERR_ALREADY_EXISTS,
        ProfileError::NoDirectory => Error::ERR_FILE_BAD_PATH,
        ProfileError::Preset(e) => crate::base::files::preset_error_code(e),
    }
}

impl UserProfiles {
    /// `profiles_dir`, or an error code (recorded) when it is empty (that would put profile files
    /// in whatever folder Godot was started from).
    fn profiles_dir(&mut self) -> Result<GString, Error> {
        if self.profiles_dir.to_string().trim().is_empty() {
            return Err(self.fail(
                "profiles_dir is empty; allowed: a res://, user:// or absolute folder path such as user://profiles"
                    .into(),
                Error::ERR_FILE_BAD_PATH,
            ));
        }
        Ok(self.profiles_dir.clone())
    }

    /// The store under `profiles_dir` for writing, or an error code (recorded) when it is empty
    /// or lies in a resource pack (read-only).
    fn store(&mut self) -> Result<ProfileStore, Error> {
        let dir = self.profiles_dir()?;
        match writable_dir(&dir) {
            Ok(p) => Ok(ProfileStore::new(p)),
            Err(e) => Err(self.fail(format!("profiles_dir {e}"), Error::ERR_FILE_CANT_WRITE)),
        }
    }

    /// Where the profiles are read from: a folder on disk, or one inside a game's pack.
    fn source(&mut self) -> Result<ProfileFiles, Error> {
        let dir = self.profiles_dir()?;
        Ok(match locate_dir(&dir.to_string()) {
            GodotFile::Disk(p) => ProfileFiles::Disk(ProfileStore::new(p)),
            GodotFile::Packed(d) => ProfileFiles::Packed(PackedProfiles { dir: d }),
        })
    }

    fn fail(&mut self, message: String, code: Error) -> Error {
        self.last_error.fail(format!("StrataUserProfiles: {message}"), code)
    }

    fn fail_profile(&mut self, e: ProfileError) -> Error {
        let code = profile_error_code(&e);
        self.fail(e.to_string(), code)
    }

    fn ok(&mut self) -> Error {
        self.last_error.succeed()
    }

    /// The active user, or an error code (recorded) when nobody is signed in.
    fn require_active(&mut self) -> Result<String, Error> {
        match &self.active {
            Some(u) => Ok(u.clone()),
            None => Err(self.fail("no active user; call set_active_user() first".into(), Error::ERR_UNCONFIGURED)),
        }
    }

    fn ensure_defaults(&mut self) {
        if self.defaults.is_none() {
            self.capture_defaults();
        }
    }

    /// The captured default descriptors of `action`.
    fn default_descriptors(&self, action: &str) -> Vec<InputDescriptor> {
        self.defaults
            .as_ref()
            .and_then(|d| d.iter().find(|(a, _)| *a == action))
            .map(|(_, events)| events.iter().filter_map(|e| descriptor_of(e).ok()).collect())
            .unwrap_or_default()
    }

    /// Restores every captured action, then applies the active profile's overrides.
    fn apply_bindings(&mut self) {
        self.ensure_defaults();
        let mut map = InputMap::singleton();
        if let Some(defaults) = &self.defaults {
            for (action, events) in defaults {
                if !map.has_action(action) {
                    map.add_action(action);
                }
                map.action_erase_events(action);
                for e in events {
                    map.action_add_event(action, e);
                }
            }
        }
        let mut skipped = Vec::new();
        for (action, inputs) in &self.profile.bindings {
            let name = StringName::from(action.as_str());
            if !map.has_action(&name) {
                skipped.push(action.clone());
                continue;
            }
            map.action_erase_events(&name);
            for d in inputs {
                map.action_add_event(&name, &event_of(d));
            }
        }
        if !skipped.is_empty() {
            godot_warn!(
                "StrataUserProfiles: the profile binds actions this project does not have: {}",
                skipped.join(", ")
            );
        }
        self.base_mut().emit_signal("bindings_changed", &[]);
    }

    /// Saves the active profile; on failure puts `previous` back.
    fn commit(&mut self, user: &str, previous: Profile) -> Error {
        let store = match self.store() {
            Ok(s) => s,
            Err(code) => {
                self.profile = previous;
                return code;
            }
        };
        match store.save(user, &self.profile) {
            Ok(()) => self.ok(),
            Err(e) => {
                self.profile = previous;
                self.fail_profile(e)
            }
        }
    }
}

#[godot_api]
impl UserProfiles {
    /// Emitted after the active user changes ("" when signed out).
    #[signal]
    fn active_user_changed(name: GString);

    /// Emitted after `InputMap` was updated from the active profile.
    #[signal]
    fn bindings_changed();

    /// Captures the current `InputMap` as the project defaults (done automatically on `_ready`
    /// or first use). Call it again after adding actions at runtime, before switching users.
    #[func]
    pub fn capture_defaults(&mut self) {
        let mut map = InputMap::singleton();
        let actions = map.get_actions();
        let mut out = Vec::with_capacity(actions.len());
        for a in actions.iter_shared() {
            let events: Vec<Gd<InputEvent>> = map.action_get_events(&a).iter_shared().collect();
            out.push((a, events));
        }
        self.defaults = Some(out);
    }

    /// Names of every user with a profile, sorted.
    #[func]
    pub fn list_users(&mut self) -> PackedStringArray {
        let Ok(files) = self.source() else { return PackedStringArray::new() };
        match files.list_users() {
            Ok(v) => v.iter().map(|s| GString::from(s.as_str())).collect(),
            Err(e) => {
                self.fail_profile(e);
                PackedStringArray::new()
            }
        }
    }

    /// Creates a user with default settings and no binding overrides.
    #[func]
    pub fn create_user(&mut self, name: GString) -> Error {
        let store = match self.store() {
            Ok(s) => s,
            Err(code) => return code,
        };
        match store.create_user(&name.to_string()) {
            Ok(_) => self.ok(),
            Err(e) => self.fail_profile(e),
        }
    }

    /// Deletes a user's profile and presets; deleting the active user signs out (defaults).
    #[func]
    pub fn delete_user(&mut self, name: GString) -> Error {
        let user = name.to_string();
        let store = match self.store() {
            Ok(s) => s,
            Err(code) => return code,
        };
        if let Err(e) = store.delete_user(&user) {
            return self.fail_profile(e);
        }
        if self.active.as_deref() == Some(user.as_str()) {
            self.active = None;
            self.profile = Profile::default();
            self.apply_bindings();
            self.base_mut().emit_signal("active_user_changed", &[GString::new().to_variant()]);
        }
        self.ok()
    }

    /// Loads `name`'s profile and applies its bindings to `InputMap` at once; "" signs out
    /// (project defaults). A profile that fails to load changes nothing.
    #[func]
    pub fn set_active_user(&mut self, name: GString) -> Error {
        self.ensure_defaults();
        let user = name.to_string();
        if user.is_empty() {
            self.active = None;
            self.profile = Profile::default();
        } else {
            let files = match self.source() {
                Ok(f) => f,
                Err(code) => return code,
            };
            match files.load(&user) {
                Ok(p) => {
                    self.active = Some(user);
                    self.profile = p;
                }
                Err(e) => return self.fail_profile(e),
            }
        }
        self.apply_bindings();
        self.base_mut().emit_signal("active_user_changed", &[name.to_variant()]);
        self.ok()
    }

    /// The active user's name, or "" when nobody is signed in.
    #[func]
    pub fn get_active_user(&self) -> GString {
        self.active.as_deref().unwrap_or("").into()
    }

    /// Binds `action` to `event` alone for the active user (keys by physical keycode) and saves.
    /// Binding an action back to exactly its default removes the override from the file.
    #[func]
    pub fn rebind(&mut self, action: StringName, event: Option<Gd<InputEvent>>) -> Error {
        self.ensure_defaults();
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        if !InputMap::singleton().has_action(&action) {
            return self.fail(format!("rebind: no action `{action}` in the input map"), Error::ERR_DOES_NOT_EXIST);
        }
        let d = match event.as_ref().map(descriptor_of) {
            Some(Ok(d)) => d,
            Some(Err(what)) => {
                return self.fail(
                    format!("rebind `{action}`: {what} cannot be bound; allowed: {ALLOWED_EVENTS}"),
                    Error::ERR_INVALID_PARAMETER,
                );
            }
            None => {
                return self.fail(
                    format!("rebind `{action}`: the event is null; allowed: {ALLOWED_EVENTS}"),
                    Error::ERR_INVALID_PARAMETER,
                );
            }
        };
        let name = action.to_string();
        let defaults = self.default_descriptors(&name);
        let previous = self.profile.clone();
        if let Err(e) = self.profile.set_binding(&name, vec![d], &defaults) {
            return self
                .fail(format!("rebind `{action}`: {e}; allowed: {ALLOWED_EVENTS}"), Error::ERR_INVALID_PARAMETER);
        }
        let code = self.commit(&user, previous);
        self.apply_bindings();
        code
    }

    /// Puts `action` back to the project default for the active user and saves.
    #[func]
    pub fn reset_action(&mut self, action: StringName) -> Error {
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        let previous = self.profile.clone();
        self.profile.reset_binding(&action.to_string());
        let code = self.commit(&user, previous);
        self.apply_bindings();
        code
    }

    /// Removes every binding override of the active user and saves.
    #[func]
    pub fn reset_all(&mut self) -> Error {
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        let previous = self.profile.clone();
        self.profile.bindings.clear();
        let code = self.commit(&user, previous);
        self.apply_bindings();
        code
    }

    /// Inputs bound to more than one action (built-in `ui_*` actions left out), as
    /// `[{ "event": InputEvent, "actions": PackedStringArray }]`.
    #[func]
    pub fn conflicts(&mut self) -> Array<VarDictionary> {
        let mut map = InputMap::singleton();
        let mut seen: Vec<(InputDescriptor, Gd<InputEvent>, Vec<String>)> = Vec::new();
        for a in map.get_actions().iter_shared() {
            let name = a.to_string();
            if name.starts_with("ui_") {
                continue;
            }
            for e in map.action_get_events(&a).iter_shared() {
                // Events rebinding cannot store (touch, gestures, MIDI…) cannot conflict here.
                let Ok(d) = descriptor_of(&e) else { continue };
                match seen.iter_mut().find(|(x, _, _)| *x == d) {
                    Some((_, _, actions)) if !actions.contains(&name) => actions.push(name.clone()),
                    Some(_) => {}
                    None => seen.push((d, e, vec![name.clone()])),
                }
            }
        }
        let mut out = Array::new();
        for (_, event, actions) in seen.into_iter().filter(|(_, _, a)| a.len() > 1) {
            let mut d = VarDictionary::new();
            d.set(&"event".to_variant(), &event.to_variant());
            let names: PackedStringArray = actions.iter().map(|s| GString::from(s.as_str())).collect();
            d.set(&"actions".to_variant(), &names.to_variant());
            out.push(&d);
        }
        out
    }

    /// The active user's setting `key` (`view_distance`, `mouse_sensitivity`, `invert_y`,
    /// `fov`, `fullscreen` or an extra key), or null when unset or nobody is signed in.
    #[func]
    pub fn get_setting(&mut self, key: GString) -> Variant {
        if self.require_active().is_err() {
            return Variant::nil();
        }
        match self.profile.settings.get(&key.to_string()) {
            Some(SettingValue::Int(i)) => i.to_variant(),
            Some(SettingValue::Float(f)) => f.to_variant(),
            Some(SettingValue::Bool(b)) => b.to_variant(),
            Some(SettingValue::Text(s)) => GString::from(s.as_str()).to_variant(),
            None => Variant::nil(),
        }
    }

    /// Checks and stores a setting for the active user, then saves. Ranges: view_distance int
    /// 2..=32, mouse_sensitivity 0.01..=10, fov 40..=120, invert_y/fullscreen bool; extra keys
    /// take an int, float, bool or String.
    #[func]
    pub fn set_setting(&mut self, key: GString, value: Variant) -> Error {
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        let v = match value.get_type() {
            VariantType::INT => SettingValue::Int(value.to::<i64>()),
            VariantType::FLOAT => SettingValue::Float(value.to::<f64>()),
            VariantType::BOOL => SettingValue::Bool(value.to::<bool>()),
            VariantType::STRING => SettingValue::Text(value.to::<GString>().to_string()),
            VariantType::STRING_NAME => SettingValue::Text(value.to::<StringName>().to_string()),
            other => {
                return self.fail(
                    format!(
                        "set_setting `{key}`: a {} value; allowed: int, float, bool or String",
                        godot::global::type_string(i64::from(other.ord()))
                    ),
                    Error::ERR_INVALID_PARAMETER,
                );
            }
        };
        let previous = self.profile.clone();
        if let Err(e) = self.profile.settings.set(&key.to_string(), v) {
            return self.fail(e.to_string(), Error::ERR_INVALID_PARAMETER);
        }
        self.commit(&user, previous)
    }

    /// Stores `preset` as `name` in the active user's library (`<user>/presets/<name>.ron`).
    #[func]
    pub fn save_preset(&mut self, name: GString, preset: Option<Gd<WorldPreset>>) -> Error {
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        let Some(preset) = preset else {
            return self.fail(format!("save_preset `{name}`: preset is null"), Error::ERR_INVALID_PARAMETER);
        };
        let core = preset.bind().core().into_owned();
        let store = match self.store() {
            Ok(s) => s,
            Err(code) => return code,
        };
        match store.save_preset(&user, &name.to_string(), &core) {
            Ok(()) => self.ok(),
            Err(e) => self.fail_profile(e),
        }
    }

    /// Names of the active user's presets, sorted.
    #[func]
    pub fn list_presets(&mut self) -> PackedStringArray {
        let Ok(user) = self.require_active() else { return PackedStringArray::new() };
        let Ok(files) = self.source() else { return PackedStringArray::new() };
        match files.list_presets(&user) {
            Ok(v) => v.iter().map(|s| GString::from(s.as_str())).collect(),
            Err(e) => {
                self.fail_profile(e);
                PackedStringArray::new()
            }
        }
    }

    /// Loads preset `name` from the active user's library; null (and `last_error()`) on error.
    #[func]
    pub fn load_preset(&mut self, name: GString) -> Option<Gd<WorldPreset>> {
        let user = self.require_active().ok()?;
        let files = self.source().ok()?;
        match files.load_preset(&user, &name.to_string()) {
            Ok(p) => {
                self.ok();
                Some(WorldPreset::from_core(p))
            }
            Err(e) => {
                self.fail_profile(e);
                None
            }
        }
    }

    /// Deletes preset `name` from the active user's library.
    #[func]
    pub fn delete_preset(&mut self, name: GString) -> Error {
        let user = match self.require_active() {
            Ok(u) => u,
            Err(code) => return code,
        };
        let store = match self.store() {
            Ok(s) => s,
            Err(code) => return code,
        };
        match store.delete_preset(&user, &name.to_string()) {
            Ok(()) => self.ok(),
            Err(e) => self.fail_profile(e),
        }
    }

    /// The message of the last failed call, or "" after a success.
    #[func]
    pub fn last_error(&self) -> GString {
        self.last_error.get()
    }
}
