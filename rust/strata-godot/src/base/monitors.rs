//! The addon's custom monitors in the debugger's Monitors tab (`Performance.add_custom_monitor`):
//! each node that has them adds its set when it enters the tree and removes it when it leaves.
//! A monitor reads one key of the node's `get_stats()` (a count, milliseconds, MiB), or the rate
//! per second of a counter there.
//!
//! Monitor ids are `CATEGORY/NAME`; the first node of a class takes the plain category
//! (`Strata/loaded_chunks`), further ones a numbered one (`Strata #2/loaded_chunks`), so two
//! worlds in one scene each have their graphs.
//!
//! May use: Godot classes only.

use godot::classes::{Performance, Time};
use godot::prelude::*;

/// How a monitor turns the node's stats into its value.
#[derive(Clone, Copy)]
pub enum Reading {
    /// The stats key's value as it is.
    Value(&'static str),
    /// The sum of two keys' values.
    Sum(&'static str, &'static str),
    /// Per second: the change of a counter key since the last reading.
    Rate(&'static str),
}

/// One monitor: its name in the category and how it reads the stats.
pub struct Monitor {
    pub name: &'static str,
    pub reading: Reading,
}

/// The monitors one node added, removed again by [`Monitors::remove`] (or on drop).
#[derive(Default)]
pub struct Monitors {
    ids: Vec<StringName>,
}

impl Monitors {
    /// Adds `monitors` for `node` under `category` (or the first free numbered form of it). Does
    /// nothing when this node's monitors are already added.
    pub fn add(&mut self, node: &Gd<Node>, category: &str, monitors: &[Monitor]) {
        if !self.ids.is_empty() || monitors.is_empty() {
            return;
        }
        let mut performance = Performance::singleton();
        let first = monitors[0].name;
        let category = (1..)
            .map(|n| if n == 1 { category.to_string() } else { format!("{category} #{n}") })
            .find(|c| !performance.has_custom_monitor(&StringName::from(format!("{c}/{first}").as_str())))
            .unwrap_or_else(|| category.to_string());
        for m in monitors {
            let id = StringName::from(format!("{category}/{}", m.name).as_str());
            if performance.has_custom_monitor(&id) {
                continue;
            }
            let source = node.clone();
            let reading = m.reading;
            let mut last: Option<(f64, f64)> = None;
            let callable = Callable::from_linked_fn(m.name, node, move |_| read(&source, reading, &mut last));
            performance.add_custom_monitor(&id, &callable);
            self.ids.push(id);
        }
    }

    /// Removes the monitors this node added.
    pub fn remove(&mut self) {
        let mut performance = Performance::singleton();
        for id in self.ids.drain(..) {
            if performance.has_custom_monitor(&id) {
                performance.remove_custom_monitor(&id);
            }
        }
    }

    /// The ids of the monitors added (`Strata/loaded_chunks`, …).
    pub fn ids(&self) -> PackedStringArray {
        self.ids.iter().map(GString::from).collect()
    }
}

/// A stats value as a float (0 when the key is missing or not a number).
fn stat(stats: &VarDictionary, key: &str) -> f64 {
    stats.get(key).map_or(0.0, |v| v.try_to::<f64>().or_else(|_| v.try_to::<i64>().map(|i| i as f64)).unwrap_or(0.0))
}

fn read(node: &Gd<Node>, reading: Reading, last: &mut Option<(f64, f64)>) -> f64 {
    if !node.is_instance_valid() {
        return 0.0;
    }
    let Ok(stats) = node.clone().call("get_stats", &[]).try_to::<VarDictionary>() else { return 0.0 };
    match reading {
        Reading::Value(key) => stat(&stats, key),
        Reading::Sum(a, b) => stat(&stats, a) + stat(&stats, b),
        Reading::Rate(key) => {
            let now = Time::singleton().get_ticks_usec() as f64 / 1e6;
            let value = stat(&stats, key);
            let rate = match *last {
                Some((t, v)) if now > t => ((value - v) / (now - t)).max(0.0),
                _ => 0.0,
            };
            *last = Some((now, value));
            rate
        }
    }
}
