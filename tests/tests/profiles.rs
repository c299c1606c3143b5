//! User profiles: names (device names Windows reserves, names differing only in case), binding
//! overrides, settings ranges and size, preset libraries, an empty profiles folder, and clear
//! errors for broken profile files that are never overwritten by a failed load.

use std::fs;
use std::path::PathBuf;
use strata_core::WorldPreset;
use strata_core::persist::profile::{
    InputDescriptor, MAX_BINDINGS, MAX_INPUTS_PER_ACTION, MAX_PROFILE_BYTES, MAX_SETTINGS_BYTES, Profile, ProfileError,
    ProfileStore, SettingValue,
};
use strata_core::preset::fingerprint::fingerprint;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("strata-profiles-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

const SPACE: InputDescriptor = InputDescriptor::Key { physical: 32 };
const KEY_F: InputDescriptor = InputDescriptor::Key { physical: 70 };

#[test]
fn users_are_created_listed_and_deleted() {
    let d = scratch("users");
    let store = ProfileStore::new(&d);
    assert!(store.list_users().unwrap().is_empty());
    store.create_user("alice").unwrap();
    store.create_user("Bob 2").unwrap();
    assert!(matches!(store.create_user("alice"), Err(ProfileError::Exists { .. })));
    assert_eq!(store.list_users().unwrap(), vec!["Bob 2".to_string(), "alice".to_string()]);
    store.save_preset("alice", "island", &WorldPreset::default()).unwrap();
    store.delete_user("alice").unwrap();
    assert_eq!(store.list_users().unwrap(), vec!["Bob 2".to_string()]);
    assert!(!d.join("alice").exists(), "the preset library goes with the user");
    assert!(matches!(store.delete_user("alice"), Err(ProfileError::NotFound { .. })));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_user_names_are_refused_and_touch_nothing() {
    let d = scratch("names");
    let store = ProfileStore::new(d.join("profiles"));
    for bad in ["", "../escape", "a/b", "..", ".hidden", "x".repeat(33).as_str(), "semi;colon", "tab\there"] {
        let e = store.create_user(bad).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, ProfileError::BadName { .. }), "{bad:?}: {m}");
        assert!(m.contains("allowed: 1 to 32 letters"), "{m}");
    }
    assert!(!d.join("escape.toml").exists());
    assert!(!d.join("profiles").exists(), "nothing was created");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn profile_files_hold_only_overrides() {
    let d = scratch("overrides");
    let store = ProfileStore::new(&d);
    let mut p = store.create_user("carol").unwrap();
    let defaults_jump = [SPACE];
    p.set_binding("jump", vec![KEY_F], &defaults_jump).unwrap();
    p.set_binding(
        "move_forward",
        vec![InputDescriptor::Key { physical: 87 }],
        &[InputDescriptor::Key { physical: 87 }],
    )
    .unwrap();
    p.set_binding("crouch", vec![], &[InputDescriptor::Key { physical: 67 }]).unwrap();
    store.save("carol", &p).unwrap();
    let text = fs::read_to_string(d.join("carol.toml")).unwrap();
    assert!(text.contains("jump") && text.contains("physical = 70"), "{text}");
    assert!(text.contains("crouch = []"), "explicit unbinding is kept: {text}");
    assert!(!text.contains("move_forward"), "an unchanged binding is not stored: {text}");
    let back = store.load("carol").unwrap();
    assert_eq!(back, p);
    assert_eq!(back.effective("jump", &defaults_jump), &[KEY_F]);
    assert_eq!(back.effective("sprint", &defaults_jump), &defaults_jump, "absent = default");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn settings_are_range_checked_and_extras_kept() {
    let mut p = Profile::default();
    for (key, value, allowed) in [
        ("view_distance", SettingValue::Int(-4), "2..=32"),
        ("view_distance", SettingValue::Int(33), "2..=32"),
        ("mouse_sensitivity", SettingValue::Float(f64::NAN), "0.01..=10"),
        ("fov", SettingValue::Float(150.0), "40..=120"),
        ("invert_y", SettingValue::Int(1), "true or false"),
        ("bad key!", SettingValue::Int(1), "letters"),
    ] {
        let e = p.settings.set(key, value).unwrap_err();
        assert!(e.field.ends_with(key) && e.to_string().contains(allowed), "{e}");
    }
    assert_eq!(p, Profile::default(), "failed sets change nothing");
    p.settings.set("fov", SettingValue::Int(90)).unwrap();
    p.settings.set("hud_scale", SettingValue::Float(1.5)).unwrap();
    p.settings.set("language", SettingValue::Text("fr".into())).unwrap();
    let back = Profile::from_toml(&p.to_toml(), "x.toml").unwrap();
    assert_eq!(back.settings.get("fov"), Some(SettingValue::Float(90.0)));
    assert_eq!(back.settings.get("hud_scale"), Some(SettingValue::Float(1.5)));
    assert_eq!(back.settings.get("language"), Some(SettingValue::Text("fr".into())));
}

#[test]
fn broken_profile_files_give_clear_errors_and_survive() {
    let d = scratch("broken");
    let store = ProfileStore::new(&d);
    let good = {
        let mut p = Profile::default();
        p.set_binding("jump", vec![KEY_F], &[SPACE]).unwrap();
        p.to_toml()
    };
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        ("empty", Vec::new(), "", ""),
        ("truncated", good.as_bytes()[..good.len() - 9].to_vec(), "", ""),
        ("binary", vec![0x00, 0xff, 0x13, 0x37, 0xfe], "", "UTF-8"),
        ("future", good.replace("version = 1", "version = 9").into_bytes(), "", "newer Strata"),
        (
            "negative view distance",
            good.replace("view_distance = 8", "view_distance = -3").into_bytes(),
            "settings.view_distance",
            "2..=32",
        ),
        ("nan fov", good.replace("fov = 75.0", "fov = nan").into_bytes(), "settings.fov", "40..=120"),
        (
            "unknown section",
            format!("{good}\n[cheats]\nfly = true\n").into_bytes(),
            "cheats",
            "version, settings, bindings",
        ),
        ("bad binding", good.replace("type = \"key\"", "type = \"theremin\"").into_bytes(), "", "mouse_button"),
        ("bad key code", good.replace("physical = 70", "physical = 0").into_bytes(), "bindings.jump", "type = \"key\""),
        (
            "wrong type",
            good.replace("invert_y = false", "invert_y = \"sometimes\"").into_bytes(),
            "settings.invert_y",
            "",
        ),
    ];
    for (what, bytes, field, allowed) in cases {
        let path = d.join("dave.toml");
        fs::write(&path, &bytes).unwrap();
        let r = store.load("dave");
        if what == "empty" {
            // An empty file is a profile with every default (TOML allows it).
            assert_eq!(r.unwrap(), Profile::default());
            continue;
        }
        let e = r.unwrap_err();
        let m = e.to_string();
        assert!(m.contains("dave.toml"), "{what}: {m}");
        assert!(m.contains(field), "{what}: {m}");
        assert!(m.contains(allowed), "{what}: {m}");
        if let ProfileError::Parse { field: f, .. } = &e {
            assert!(f.contains(field), "{what}: field {f:?} in {m}");
        }
        assert_eq!(fs::read(&path).unwrap(), bytes, "{what}: the file is untouched");
    }
    // Out-of-range values name the line too.
    fs::write(d.join("erin.toml"), "version = 1\n\n[settings]\nview_distance = 99\n").unwrap();
    let m = store.load("erin").unwrap_err().to_string();
    assert!(m.contains("erin.toml:4:1") && m.contains("2..=32"), "{m}");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn preset_library_saves_lists_loads_and_deletes() {
    let d = scratch("library");
    let store = ProfileStore::new(&d);
    store.create_user("fay").unwrap();
    let mut p = WorldPreset { name: "Fay's island".into(), seed: 31, ..WorldPreset::default() };
    p.water.sea_level = 12;
    store.save_preset("fay", "island", &p).unwrap();
    store.save_preset("fay", "big hills", &WorldPreset::default()).unwrap();
    assert!(d.join("fay/presets/island.ron").exists());
    assert_eq!(store.list_presets("fay").unwrap(), vec!["big hills".to_string(), "island".to_string()]);
    let back = store.load_preset("fay", "island").unwrap();
    assert_eq!(fingerprint(&back), fingerprint(&p));
    assert!(matches!(store.save_preset("fay", "../../evil", &p), Err(ProfileError::BadName { .. })));
    store.delete_preset("fay", "island").unwrap();
    assert_eq!(store.list_presets("fay").unwrap(), vec!["big hills".to_string()]);
    let e = store.load_preset("fay", "island").unwrap_err();
    assert!(e.to_string().contains("no preset named `island`"), "{e}");
    // A broken library preset names its file.
    fs::write(d.join("fay/presets/bad.ron"), "(format: \"strata-preset\", version: 1, preset: (height: (octaves: 0)))")
        .unwrap();
    let m = store.load_preset("fay", "bad").unwrap_err().to_string();
    assert!(m.contains("bad.ron") && m.contains("height_octaves") && m.contains("1..=12"), "{m}");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn device_names_windows_reserves_are_refused() {
    let d = scratch("devices");
    let store = ProfileStore::new(&d);
    store.create_user("gus").unwrap();
    for bad in
        ["con", "CON", "Prn", "aux", "NUL", "com1", "Com5", "COM9", "lpt1", "LPT9", "nul.txt", "Con.toml", "aux.a.b"]
    {
        let e = store.create_user(bad).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, ProfileError::BadName { .. }), "{bad}: {m}");
        assert!(m.contains("device name Windows reserves") && m.contains("com1 to com9"), "{bad}: {m}");
        let e = store.save_preset("gus", bad, &WorldPreset::default()).unwrap_err();
        assert!(matches!(e, ProfileError::BadName { what: "preset", .. }), "{bad}: {e}");
    }
    for ok in ["console", "com10", "lpt0", "auxiliary", "null"] {
        store.create_user(ok).unwrap();
    }
    assert_eq!(fs::read_dir(&d).unwrap().count(), 6, "only the accepted users were created");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn names_that_differ_only_in_case_collide() {
    let d = scratch("case");
    let store = ProfileStore::new(&d);
    store.create_user("alice").unwrap();
    for other in ["Alice", "ALICE", "aLiCe"] {
        let e = store.create_user(other).unwrap_err();
        let m = e.to_string();
        assert!(matches!(&e, ProfileError::CaseCollision { existing, .. } if existing == "alice"), "{other}: {m}");
        assert!(m.contains(&format!("`{other}`")) && m.contains("existing user `alice`") && m.contains("case"), "{m}");
        // Saving a profile under that name is the same collision.
        assert!(matches!(store.save(other, &Profile::default()), Err(ProfileError::CaseCollision { .. })));
    }
    assert_eq!(store.list_users().unwrap(), vec!["alice".to_string()]);
    // The user itself still saves; Unicode case counts too.
    store.save("alice", &Profile::default()).unwrap();
    store.create_user("Zoë").unwrap();
    assert!(matches!(store.create_user("ZOË"), Err(ProfileError::CaseCollision { .. })));
    // Presets: replacing a preset is fine, a case variant of it is refused.
    store.save_preset("alice", "Island", &WorldPreset::default()).unwrap();
    store.save_preset("alice", "Island", &WorldPreset { seed: 5, ..WorldPreset::default() }).unwrap();
    let e = store.save_preset("alice", "island", &WorldPreset::default()).unwrap_err();
    assert!(e.to_string().contains("existing preset `Island`"), "{e}");
    assert_eq!(store.list_presets("alice").unwrap(), vec!["Island".to_string()]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_empty_profiles_folder_is_refused() {
    let store = ProfileStore::new("");
    let cwd_before: Vec<_> = fs::read_dir(".").unwrap().map(|e| e.unwrap().file_name()).collect();
    let checks: Vec<Result<(), ProfileError>> = vec![
        store.create_user("hank").map(|_| ()),
        store.save("hank", &Profile::default()),
        store.load("hank").map(|_| ()),
        store.list_users().map(|_| ()),
        store.delete_user("hank"),
        store.save_preset("hank", "p", &WorldPreset::default()),
        store.list_presets("hank").map(|_| ()),
    ];
    for r in checks {
        let e = r.unwrap_err();
        assert!(matches!(e, ProfileError::NoDirectory), "{e}");
        assert!(e.to_string().contains("profiles folder is empty") && e.to_string().contains("allowed"), "{e}");
    }
    let cwd_after: Vec<_> = fs::read_dir(".").unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(cwd_before, cwd_after, "nothing was written into the working folder");
}

#[test]
fn settings_too_large_to_load_are_refused_when_set() {
    let d = scratch("big-settings");
    let store = ProfileStore::new(&d);
    let mut p = store.create_user("ivy").unwrap();
    let text = "t".repeat(4096);
    let mut n = 0;
    let e = loop {
        match p.settings.set(&format!("note_{n}"), SettingValue::Text(text.clone())) {
            Ok(()) => n += 1,
            Err(e) => break e,
        }
        assert!(n < 1000, "the settings never reached their limit");
    };
    let m = e.to_string();
    assert!(
        m.contains(&format!("settings.note_{n}")) && m.contains(&format!("at most {MAX_SETTINGS_BYTES} bytes")),
        "{m}"
    );
    assert!(p.settings.get(&format!("note_{n}")).is_none(), "the refused setting is not kept");
    assert!(p.settings.toml_bytes() <= MAX_SETTINGS_BYTES);
    // Replacing a setting with a shorter value is fine.
    p.settings.set("note_0", SettingValue::Text("short".into())).unwrap();
    // What was accepted saves and loads back, even with the most bindings allowed.
    for i in 0..MAX_BINDINGS {
        // 128 bytes of quotes: each is escaped in the file.
        let action = format!("{i:04}{}", "\"".repeat(124));
        let inputs = vec![InputDescriptor::JoyAxis { axis: 15, direction: -1.0 }; MAX_INPUTS_PER_ACTION];
        p.set_binding(&action, inputs, &[]).unwrap();
    }
    store.save("ivy", &p).unwrap();
    let size = fs::metadata(d.join("ivy.toml")).unwrap().len();
    println!("largest profile: {size} bytes");
    assert!(size <= MAX_PROFILE_BYTES, "{size}");
    assert_eq!(store.load("ivy").unwrap(), p);

    // A hand-made file with more settings than allowed is refused on load, naming the limit.
    let mut big = String::from("version = 1\n[settings]\n");
    for i in 0..80 {
        big.push_str(&format!("note_{i} = \"{text}\"\n"));
    }
    assert!((big.len() as u64) < MAX_PROFILE_BYTES);
    fs::write(d.join("jack.toml"), &big).unwrap();
    let m = store.load("jack").unwrap_err().to_string();
    assert!(m.contains("jack.toml") && m.contains(&format!("at most {MAX_SETTINGS_BYTES} bytes")), "{m}");
    fs::remove_dir_all(&d).unwrap();
}
