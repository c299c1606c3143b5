//! Step 4 of the greedy mesher: the faces of one direction merged greedily, slice by slice,
//! from the rows of faces and the two merge masks of step 3 alone; each quad goes to a
//! [`QuadSink`] as soon as it is found (step 5's writers, or the collision pass).
//!
//! May use: `base` and the other `mesh` modules.

use crate::mesh::layout::{QuadSink, SliceLayout, SliceQuad};

/// Step 4: greedy merge of one direction's faces, slice by slice: from the lowest face left, the
/// run along the row while `along` allows, then the next rows while they hold the whole run and
/// `across` allows. Only the rows marked in `slice_rows` (per slice) are visited. The quads go to
/// `emit` in slice, row, bit order. Clears the bits of `faces` that later rows'
/// quads take. With `ANY`, every face merges with every neighbouring face (`along` and `across`
/// are not read).
#[inline(always)]
pub(super) fn merge_faces<const ANY: bool>(
    faces: &mut [u64],
    along: &[u64],
    across: &[u64],
    layout: SliceLayout,
    slice_rows: &[u64],
    emit: &mut impl QuadSink,
) {
    let SliceLayout { origin, layers, rows, layer_step, row_step } = layout;
    // Every row of every slice lies below `end`, checked once here for the unchecked reads
    // below.
    let end = origin + layers.saturating_sub(1) * layer_step + rows.saturating_sub(1) * row_step + 1;
    assert!(faces.len() >= end && (ANY || (along.len() >= end && across.len() >= end)), "merge rows out of range");
    // Only rows below `rows` (so below `end`) are visited.
    let row_mask = if rows >= 64 { !0 } else { (1u64 << rows) - 1 };
    for (layer, &occupied) in slice_rows[..layers].iter().enumerate() {
        let mut rows_left = occupied & row_mask;
        while rows_left != 0 {
            let r = rows_left.trailing_zeros() as usize;
            rows_left &= rows_left - 1;
            let ri = origin + layer * layer_step + r * row_step;
            // SAFETY: row `r` of slice `layer` is below `end` (checked above against all three
            // arrays).
            let (mut bits, joins) =
                unsafe { (*faces.get_unchecked(ri), if ANY { !0 } else { *along.get_unchecked(ri) }) };
            if bits == 0 {
                continue;
            }
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                // Bit k of `cont`: faces k and k + 1 are both left and may merge.
                let cont = joins & bits & (bits >> 1);
                let w = (!(cont >> b)).trailing_zeros() as usize + 1;
                let run = ((1u64 << w) - 1) << b;
                bits &= !run;
                let mut h = 1;
                let mut rj = ri;
                while r + h < rows {
                    let next = rj + row_step;
                    // SAFETY: `rj` and `next` are rows `r + h - 1` and `r + h` of this slice, both
                    // below `rows`, so below `end` (checked above against all three arrays).
                    let (below, down) =
                        unsafe { (faces.get_unchecked_mut(next), if ANY { !0 } else { *across.get_unchecked(rj) }) };
                    if *below & run != run || down & run != run {
                        break;
                    }
                    *below &= !run;
                    rj = next;
                    h += 1;
                }
                emit.emit(SliceQuad { layer, row: r, bit: b, width: w, height: h });
            }
        }
    }
}
