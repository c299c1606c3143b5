//! What Godot's update of a `TileMapLayer` (`update_internals`) costs, learnt from the frames
//! that ran it, so that `layer_2d` stops setting cells where the update would pass the frame
//! budget.
//!
//! The model follows what Godot does (`scene/2d/tile_map_layer.cpp`): every rendering quadrant
//! (`rendering_quadrant_size`, 16 × 16 cells by default) with a changed cell is rebuilt whole (its
//! canvas items freed and every cell in it drawn again), every physics quadrant
//! (`physics_quadrant_size`) with a changed cell has its bodies freed and the collision polygons
//! of all its cells merged and split into convex shapes again, and each call also walks every
//! quadrant of the layer to reset their draw order. So a frame's update costs
//!
//! `fixed + per_quadrant × quadrants touched + per_cell × (cells in the touched quadrants + cells set)`
//!
//! and the three costs are learnt by recursive least squares with forgetting over the frames'
//! measurements (each frame gives one equation). A prediction is padded by the learnt relative
//! error of past predictions, so a frame planned to the budget rarely passes it.
//!
//! May use: std only (pure arithmetic; unit tested without Godot).

/// The model's parameters before a frame has measured any (ns): per call, per quadrant touched,
/// per cell in a touched quadrant or set. Measured on a Godot 4.6 layer of the created TileSet
/// (a collision square on each solid tile, 16-cell quadrants): changing one cell of a quadrant
/// costs 0.02 ms when the quadrant is empty and 0.45 ms when it is full, most of it the merge
/// of the collision polygons.
const INITIAL_NS: [f64; 3] = [20_000.0, 20_000.0, 1_700.0];
/// How fast old frames are forgotten (per frame; 1 keeps all).
const FORGETTING: f64 = 0.95;
/// The initial uncertainty of each parameter (its variance over the measurement noise's, a
/// noise of about 0.1 ms): tens of µs for the per-call and per-quadrant costs, about 1 µs for
/// the per-cell one.
const INITIAL_VARIANCE: [f64; 3] = [0.25, 0.25, 1e-4];
/// A cap on the uncertainty (its trace): frames that teach nothing new (all alike) would
/// otherwise let it grow without bound and the next different frame throw the model off.
const MAX_VARIANCE_TRACE: f64 = 10.0;
/// A measurement is trusted up to this many times the prediction (plus `OUTLIER_SLACK_NS`):
/// a frame the thread was descheduled in (a busy machine) measures the wait, not Godot's work.
const OUTLIER_FACTOR: f64 = 4.0;
const OUTLIER_SLACK_NS: f64 = 500_000.0;
/// The weight of a frame's relative error in its running mean.
const ERROR_MEAN_WEIGHT: f64 = 0.1;
/// Predictions are padded by this many mean relative errors.
const ERROR_PAD: f64 = 2.0;
/// The most a prediction is padded (relative).
const MAX_PAD: f64 = 1.0;

/// The work of one `update_internals` call, as the model counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct LayerWork {
    /// Rendering quadrants with a changed cell.
    pub quadrants: u32,
    /// Cells Godot handles: those in the touched quadrants plus those set.
    pub cells: u32,
}

impl LayerWork {
    fn features(self) -> [f64; 3] {
        [1.0, f64::from(self.quadrants), f64::from(self.cells)]
    }
}

/// The learnt cost of Godot's update of a `TileMapLayer`.
#[derive(Clone, Debug)]
pub(super) struct LayerUpdateCost {
    /// ns per call, per quadrant, per cell.
    theta: [f64; 3],
    /// The parameters' covariance (over the measurement noise's variance).
    variance: [[f64; 3]; 3],
    /// Running mean of |measured − predicted| / predicted.
    relative_error: f64,
}

impl Default for LayerUpdateCost {
    fn default() -> Self {
        let mut variance = [[0.0; 3]; 3];
        for (i, v) in INITIAL_VARIANCE.iter().enumerate() {
            variance[i][i] = *v;
        }
        Self { theta: INITIAL_NS, variance, relative_error: 0.25 }
    }
}

impl LayerUpdateCost {
    /// The expected cost of `work` in ns (never negative), not padded.
    pub(super) fn expected_ns(&self, work: LayerWork) -> f64 {
        let x = work.features();
        if work.quadrants == 0 && work.cells == 0 {
            return 0.0;
        }
        (0..3).map(|i| self.theta[i].max(0.0) * x[i]).sum()
    }

    /// The cost of `work` in ns to plan a frame with: the expectation padded by the learnt
    /// relative error.
    pub(super) fn planned_ns(&self, work: LayerWork) -> f64 {
        self.expected_ns(work) * (1.0 + (ERROR_PAD * self.relative_error).min(MAX_PAD))
    }

    /// Learns from a call that did `work` and took `measured_ns`.
    pub(super) fn learn(&mut self, work: LayerWork, measured_ns: f64) {
        if !measured_ns.is_finite() || measured_ns < 0.0 || (work.quadrants == 0 && work.cells == 0) {
            return;
        }
        let predicted = self.expected_ns(work);
        let y = measured_ns.min(predicted * OUTLIER_FACTOR + OUTLIER_SLACK_NS);
        if predicted > 0.0 {
            let rel = ((y - predicted).abs() / predicted).min(4.0);
            self.relative_error += (rel - self.relative_error) * ERROR_MEAN_WEIGHT;
        }
        let x = work.features();
        let px: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| self.variance[i][j] * x[j]).sum());
        let denominator = FORGETTING + (0..3).map(|i| x[i] * px[i]).sum::<f64>();
        if !(denominator.is_finite() && denominator > 0.0) {
            return;
        }
        let gain: [f64; 3] = std::array::from_fn(|i| px[i] / denominator);
        let error = y - (0..3).map(|i| self.theta[i] * x[i]).sum::<f64>();
        for (t, g) in self.theta.iter_mut().zip(gain) {
            *t += g * error;
        }
        for (row, g) in self.variance.iter_mut().zip(gain) {
            for (v, p) in row.iter_mut().zip(px) {
                *v = (*v - g * p) / FORGETTING;
            }
        }
        let trace: f64 = (0..3).map(|i| self.variance[i][i]).sum();
        if !trace.is_finite() || trace > MAX_VARIANCE_TRACE {
            let scale = if trace.is_finite() { MAX_VARIANCE_TRACE / trace } else { 0.0 };
            for row in &mut self.variance {
                for v in row.iter_mut() {
                    *v *= scale;
                }
            }
            if scale == 0.0 {
                *self = Self { theta: self.theta, ..Self::default() };
            }
        }
    }

    /// The learnt costs (ns): per call, per quadrant, per cell.
    #[cfg(test)]
    fn costs_ns(&self) -> [f64; 3] {
        self.theta.map(|t| t.max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(quadrants: u32, cells: u32) -> LayerWork {
        LayerWork { quadrants, cells }
    }

    /// A layer whose update costs `truth` (per call, quadrant, cell) exactly.
    fn cost(truth: [f64; 3], w: LayerWork) -> f64 {
        truth[0] + truth[1] * f64::from(w.quadrants) + truth[2] * f64::from(w.cells)
    }

    #[test]
    fn learns_the_costs_of_varied_frames() {
        let truth = [30_000.0, 150_000.0, 400.0];
        let mut m = LayerUpdateCost::default();
        for i in 0..200u32 {
            let q = 1 + i % 7;
            let w = work(q, q * (60 + (i * 37) % 190) + (i * 13) % 300);
            m.learn(w, cost(truth, w));
        }
        for (got, want) in m.costs_ns().iter().zip(truth) {
            assert!((got - want).abs() <= want * 0.02 + 1.0, "learnt {:?}, truth {truth:?}", m.costs_ns());
        }
        let w = work(5, 900);
        assert!((m.expected_ns(w) - cost(truth, w)).abs() < cost(truth, w) * 0.01);
        assert!(m.planned_ns(w) >= m.expected_ns(w));
    }

    #[test]
    fn no_work_costs_nothing_and_teaches_nothing() {
        let mut m = LayerUpdateCost::default();
        assert_eq!(m.expected_ns(LayerWork::default()), 0.0);
        let before = m.costs_ns();
        m.learn(LayerWork::default(), 5e6);
        m.learn(work(2, 300), f64::NAN);
        m.learn(work(2, 300), -1.0);
        assert_eq!(m.costs_ns(), before);
    }

    #[test]
    fn a_descheduled_frame_moves_the_model_a_bounded_step() {
        let truth = [30_000.0, 150_000.0, 400.0];
        let mut m = LayerUpdateCost::default();
        for i in 0..100u32 {
            let w = work(1 + i % 5, 200 + (i * 31) % 800);
            m.learn(w, cost(truth, w));
        }
        let w = work(3, 600);
        let before = m.expected_ns(w);
        m.learn(w, 1e9);
        let after = m.expected_ns(w);
        assert!(after < before * OUTLIER_FACTOR + OUTLIER_SLACK_NS, "{before} → {after}");
        // And it comes back to the truth.
        for i in 0..100u32 {
            let w = work(1 + i % 5, 200 + (i * 31) % 800);
            m.learn(w, cost(truth, w));
        }
        assert!((m.expected_ns(w) - cost(truth, w)).abs() < cost(truth, w) * 0.02);
    }

    #[test]
    fn frames_all_alike_keep_the_model_finite_and_predicting_them() {
        let mut m = LayerUpdateCost::default();
        let w = work(4, 1024);
        for _ in 0..10_000 {
            m.learn(w, 900_000.0);
        }
        assert!(m.costs_ns().iter().all(|c| c.is_finite()));
        assert!((m.expected_ns(w) - 900_000.0).abs() < 9_000.0, "{}", m.expected_ns(w));
    }
}
