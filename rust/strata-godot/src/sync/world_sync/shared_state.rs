//! `StrataWorldSync`'s shared game state as Godot values: a `Variant` as the core's
//! `SharedValue` and back.
//!
//! May use: `strata_core::net::shared_state`.

use godot::prelude::*;
use strata_core::net::shared_state::SharedValue;

/// A Godot value as a shared value: `Ok(None)` for null; the type's name when it cannot be shared.
pub(super) fn shared_value_of(v: &Variant) -> Result<Option<SharedValue>, String> {
    use godot::builtin::VariantType as T;
    Ok(Some(match v.get_type() {
        T::NIL => return Ok(None),
        T::BOOL => SharedValue::Bool(v.to::<bool>()),
        T::INT => SharedValue::Int(v.to::<i64>()),
        T::FLOAT => SharedValue::Float(v.to::<f64>()),
        T::STRING => SharedValue::Text(v.to::<GString>().to_string()),
        T::STRING_NAME => SharedValue::Text(v.to::<StringName>().to_string()),
        T::VECTOR2 => {
            let p = v.to::<Vector2>();
            SharedValue::Vector2([p.x, p.y])
        }
        T::VECTOR3 => {
            let p = v.to::<Vector3>();
            SharedValue::Vector3([p.x, p.y, p.z])
        }
        T::PACKED_BYTE_ARRAY => SharedValue::Bytes(v.to::<PackedByteArray>().to_vec()),
        other => return Err(format!("{other:?}")),
    }))
}

/// A shared value as a Godot value (text as `String`).
pub(super) fn variant_of(v: &SharedValue) -> Variant {
    match v {
        SharedValue::Bool(b) => b.to_variant(),
        SharedValue::Int(i) => i.to_variant(),
        SharedValue::Float(f) => f.to_variant(),
        SharedValue::Text(s) => GString::from(s.as_str()).to_variant(),
        SharedValue::Vector2([x, y]) => Vector2::new(*x, *y).to_variant(),
        SharedValue::Vector3([x, y, z]) => Vector3::new(*x, *y, *z).to_variant(),
        SharedValue::Bytes(b) => PackedByteArray::from(b.as_slice()).to_variant(),
    }
}
