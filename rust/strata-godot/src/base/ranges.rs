//! Property values kept in range as Godot's own nodes keep theirs: clamped, with one warning
//! that names the class, the property, the value and what is allowed (law: Clear errors); and
//! the world's coordinate bounds for viewers.
//!
//! May use: godot only (a leaf: every module of the crate may use it).

use godot::prelude::*;

/// `value` for integer property `class.property`, clamped to `min..=max` with one warning
/// naming the property, the value and the range when it was outside.
pub(crate) fn int_in_range(class: &str, property: &str, value: i64, min: i64, max: i64) -> i64 {
    let clamped = value.clamp(min, max);
    if clamped != value {
        godot_warn!("{class}.{property}: {value} is out of range; allowed: {min} to {max}; using {clamped}");
    }
    clamped
}

/// `value` for float property `class.property`, clamped to `min..=max` (infinities too) with one
/// warning naming the property, the value and the range; NaN keeps `previous`.
pub(crate) fn float_in_range(class: &str, property: &str, value: f64, min: f64, max: f64, previous: f64) -> f64 {
    if value.is_nan() {
        godot_warn!("{class}.{property}: NaN is not a number; allowed: {min} to {max}; keeping {previous}");
        return previous;
    }
    let clamped = value.clamp(min, max);
    if clamped != value {
        godot_warn!("{class}.{property}: {value} is out of range; allowed: {min} to {max}; using {clamped}");
    }
    clamped
}

/// The world's coordinate bounds, in voxels (3D) or tiles (2D), on every axis: ±1,073,741,823
/// (half of the 32-bit range, so neighbours and chunk corners never overflow).
pub(crate) const WORLD_BOUND: f64 = 1_073_741_823.0;

/// Keeps a viewer's position within [`WORLD_BOUND`], warning once when it leaves (and again
/// only after it came back).
#[derive(Default)]
pub(crate) struct ViewerBounds {
    outside: bool,
}

impl ViewerBounds {
    /// `pos` clamped into the bounds (a non-finite coordinate becomes 0), with one warning
    /// naming the position and the bounds when the viewer goes out; `unit` is "voxels" or "tiles".
    pub(crate) fn clamp<const N: usize>(&mut self, class: &str, pos: [f64; N], unit: &str) -> [f64; N] {
        let inside = pos.iter().all(|v| v.is_finite() && v.abs() <= WORLD_BOUND);
        if !inside && !self.outside {
            let shown: Vec<String> = pos.iter().map(|v| format!("{v}")).collect();
            let shown = shown.join(", ");
            let b = WORLD_BOUND as i64;
            godot_warn!(
                "{class}: the viewer at ({shown}) {unit} is beyond the world's bounds; allowed: -{b} to {b} on every axis; streaming around the nearest point inside"
            );
        }
        self.outside = !inside;
        Self::clamped(pos)
    }

    /// `pos` clamped into the bounds as [`ViewerBounds::clamp`] does, without a warning.
    pub(crate) fn clamped<const N: usize>(pos: [f64; N]) -> [f64; N] {
        pos.map(|v| if v.is_finite() { v.clamp(-WORLD_BOUND, WORLD_BOUND) } else { 0.0 })
    }
}
