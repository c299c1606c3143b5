//! Layer `host`: what both world nodes share, below the nodes themselves: the preset, generator,
//! edits, state and saves a world holds (`world_host`), the core's meshes as Godot meshes
//! (`meshes`) and their materials (`materials`), voxel and ray edits (`world_edits`), the water
//! flow switch (`water_flow`), the configuration warnings (`config_warnings`), the edits stored
//! with a scene (`scene_edits`), a side-view world's structures resolved (`structures_2d`), the
//! scenes and state of entities (`entity_scenes`), a shared world's replica entities (`replicas`)
//! and the calls to the navigation servers (`navigation_server`).
//!
//! May use: `base`, `resources`, `strata_core`; never a node class.

pub(crate) mod config_warnings;
pub(crate) mod entity_scenes;
pub(crate) mod materials;
pub(crate) mod meshes;
pub(crate) mod navigation_server;
pub(crate) mod replicas;
pub(crate) mod scene_edits;
pub(crate) mod structures_2d;
pub(crate) mod water_flow;
pub(crate) mod world_edits;
pub(crate) mod world_host;
