//! What both world nodes' navigation says to Godot's navigation servers: the server singleton by
//! name, a call by name that reports a failure instead of panicking (the crate's Godot bindings
//! leave the navigation classes out, gdext's default class set), and the move of the
//! navigation agents' targets at an origin shift (they aim at global positions).
//!
//! May use: nothing of the crate.

use godot::classes::{Engine, Object};
use godot::prelude::*;
use std::ops::Sub;

/// The navigation server singleton `name` (`NavigationServer3D`, `NavigationServer2D`); absent
/// only in a build without navigation, which is reported on behalf of `class`.
pub fn server(name: &str, class: &str) -> Option<Gd<Object>> {
    let server = Engine::singleton().get_singleton(name);
    if server.is_none() {
        godot_error!("{class}: navigation_enabled needs {name}, which this Godot build lacks");
    }
    server
}

/// `server.method(args)` by name; a failure is reported on behalf of `class` and gives nil.
pub fn call(server: &mut Gd<Object>, class: &str, method: &str, args: &[Variant]) -> Variant {
    server.try_call(method, args).unwrap_or_else(|e| {
        let name = server.get_class();
        godot_error!("{class} navigation: {name}.{method} failed: {e}");
        Variant::nil()
    })
}

/// Moves the `target_position` of the navigation agents of class `agent_class`
/// (`NavigationAgent3D`, `NavigationAgent2D`) at or under `node` back by `d`.
pub fn shift_agent_targets<V>(node: &Gd<Node>, agent_class: &str, d: V)
where
    V: FromGodot + ToGodot + Sub<Output = V> + Copy,
{
    let mut agents: Vec<Gd<Node>> =
        node.find_children_ex("*").type_(agent_class).owned(false).done().iter_shared().collect();
    if node.is_class(agent_class) {
        agents.push(node.clone());
    }
    for mut agent in agents {
        if let Ok(t) = agent.get("target_position").try_to::<V>() {
            agent.set("target_position", &(t - d).to_variant());
        }
    }
}
