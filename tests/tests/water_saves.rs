//! Water flows pending when a world is saved: the save keeps them (format 4) and loading runs
//! them again, so the water settles as in the run that was never saved (law: Nothing is lost);
//! saves without pending flows are still written and read as format 3.

use std::time::Instant;
use strata_core::IVec3;
use strata_core::base::block::{AIR, BlockId, STONE, WATER};
use strata_core::base::edit_history::VoxelChange;
use strata_core::base::edits::EditMap;
use strata_core::persist::save::{
    SAVE_VERSION_WITH_FLOWS, SAVE_VERSION_WITHOUT_FLOWS, SaveOptions, WorldSave, decode_world_save, encode_world_save,
};
use strata_core::stream::water_flow::{FlowGrid, FlowLimits, GRID_3D};
use strata_core::stream::water_runner::{GeneratedWorld, PendingFlow, WaterRunner, flow_after_edit};

/// Stone below y = 6 with a lake of water at y = 1..=4 (x, z in 0..10) and air above.
struct Lake;

impl GeneratedWorld for Lake {
    fn grid(&self) -> FlowGrid {
        GRID_3D
    }
    fn voxel(&mut self, p: IVec3) -> BlockId {
        let in_lake = (0..10).contains(&p.x) && (0..10).contains(&p.z);
        match p.y {
            1..=4 if in_lake => WATER,
            5 if in_lake => AIR,
            ..6 => STONE,
            _ => AIR,
        }
    }
}

fn boxed(min: IVec3, max: IVec3, id: BlockId) -> Vec<(IVec3, BlockId)> {
    let mut v = Vec::new();
    for y in min.y..=max.y {
        for z in min.z..=max.z {
            for x in min.x..=max.x {
                v.push((IVec3::new(x, y, z), id));
            }
        }
    }
    v
}

/// Digs beside the lake, a trench, a dam across it, a hole under the lake bed.
fn edits() -> Vec<Vec<(IVec3, BlockId)>> {
    vec![
        boxed(IVec3::new(10, 2, 3), IVec3::new(12, 5, 5), AIR),
        boxed(IVec3::new(13, 3, 4), IVec3::new(20, 5, 4), AIR),
        boxed(IVec3::new(13, 4, 4), IVec3::new(13, 5, 4), STONE),
        boxed(IVec3::new(4, -6, 4), IVec3::new(5, 0, 5), AIR),
        vec![(IVec3::new(-5, 12, -5), WATER)],
    ]
}

fn edit(runner: &mut WaterRunner, map: &mut EditMap, batch: &[(IVec3, BlockId)]) {
    let changes: Vec<VoxelChange> = batch
        .iter()
        .map(|&(pos, id)| {
            let before = map.get(pos);
            map.set(pos, id);
            VoxelChange { pos, before, after: Some(id) }
        })
        .collect();
    runner.submit(&changes, true);
}

fn settle(runner: &mut WaterRunner, map: &mut EditMap) {
    let t0 = Instant::now();
    while !runner.is_settled() {
        for f in runner.take_finished() {
            for (p, id) in f.changes {
                map.set(p, id);
            }
        }
        assert!(t0.elapsed().as_secs() < 60, "flows never finished");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn a_save_taken_with_flows_pending_loads_and_settles_to_the_uninterrupted_water() {
    let edits = edits();
    // The run that is never saved.
    let mut want = EditMap::new();
    for batch in &edits {
        for &(p, id) in batch {
            want.set(p, id);
        }
        let changed: Vec<IVec3> = batch.iter().map(|&(p, _)| p).collect();
        flow_after_edit(&mut Lake, FlowLimits::default(), &mut want, &changed);
    }
    for cut in 1..=edits.len() {
        // Edits up to `cut` applied; their flows not taken yet when the world is saved.
        let mut runner = WaterRunner::new(Lake, FlowLimits::default(), EditMap::new()).expect("flow thread");
        let mut map = EditMap::new();
        for batch in &edits[..cut] {
            edit(&mut runner, &mut map, batch);
        }
        let save = WorldSave { edits: map, pending_flows: runner.pending_flows(), ..WorldSave::default() };
        drop(runner);
        assert_eq!(save.pending_flows.len(), cut);
        let bytes = encode_world_save(&save, "flows.strata", SaveOptions::default()).expect("the save is written");
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), SAVE_VERSION_WITH_FLOWS);
        let loaded = decode_world_save(&bytes, "flows.strata", SaveOptions::default()).expect("the save loads");
        assert_eq!(loaded, save);
        // Loading: the saved edits, the pending flows run again, then the rest of the edits.
        let mut runner = WaterRunner::new(Lake, FlowLimits::default(), EditMap::new()).expect("flow thread");
        let mut map = loaded.edits;
        runner.restore(&map, loaded.pending_flows);
        for batch in &edits[cut..] {
            edit(&mut runner, &mut map, batch);
        }
        settle(&mut runner, &mut map);
        assert_eq!(map, want, "saved after {cut} edits");
        assert!(map.get(IVec3::new(11, 4, 4)) == Some(WATER), "the dug hole holds water");
    }
}

#[test]
fn saves_without_pending_flows_stay_format_3_and_old_saves_load_with_none() {
    let mut save = WorldSave::default();
    save.edits.set(IVec3::new(3, 4, 5), STONE);
    let bytes = encode_world_save(&save, "plain.strata", SaveOptions::default()).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), SAVE_VERSION_WITHOUT_FLOWS);
    let back = decode_world_save(&bytes, "plain.strata", SaveOptions::default()).unwrap();
    assert!(back.pending_flows.is_empty());
    assert_eq!(back, save);
    // A pending flow naming a block the library lacks is refused before anything is written.
    let bad = PendingFlow {
        flows: true,
        changes: vec![VoxelChange { pos: IVec3::new(1, 2, 3), before: None, after: Some(60_000) }],
    };
    let save = WorldSave { pending_flows: vec![bad], ..save };
    let e = encode_world_save(&save, "bad.strata", SaveOptions::default()).unwrap_err();
    assert!(e.to_string().contains("bad.strata") && e.to_string().contains("60000"), "{e}");
}
