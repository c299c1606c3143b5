//! Principal component analysis of an elevation grid, and the `.spca` heightmap file that stores
//! a grid as k components instead of its samples.
//!
//! The grid `X` (`rows × cols`) is read with each row a sample and each column a feature. It is
//! centred by the column means `x̄`, the covariance `C = (X − x̄)ᵀ(X − x̄)` is diagonalised by a
//! cyclic Jacobi eigen solver ([`symmetric_eigen`]; exact to rounding, and small enough to test
//! against its definition), and the eigenvectors sorted by falling eigenvalue are the principal
//! components `v₁ … v_cols`. With k of them the grid is reconstructed ("inverted to the original
//! data") as `X̂ₖ = x̄ + (X − x̄)·Vₖ·Vₖᵀ`, and what is lost is `‖X − X̂ₖ‖² / ‖X − x̄‖²`.
//!
//! [`PcaModel`] keeps what a k-component reconstruction needs — the means, k components and k
//! scores per row, as `f32` — and reads and writes it as a `.spca` file (layout in
//! `docs/formats.md`, version [`SPCA_VERSION`]), bounded and checked before a value is used:
//! dimensions against [`MAX_PCA_SIDE`] and [`MAX_PCA_COMPONENTS`], the byte count against what
//! the header promises, a CRC-32 over the whole file, and every value finite.
//!
//! May use: `noise::heightmap` (its error type).

use crate::noise::heightmap_error::HeightmapError;
use std::path::Path;
use thiserror::Error;

/// The widest grid analysed: the covariance is `cols × cols` and the solver costs `cols³`.
pub const MAX_PCA_COLUMNS: usize = 1024;
/// The most rows and columns of a `.spca` file.
pub const MAX_PCA_SIDE: usize = 8192;
/// The most components a `.spca` file stores.
pub const MAX_PCA_COMPONENTS: usize = 1024;
/// The magic that opens a `.spca` file.
pub const SPCA_MAGIC: [u8; 8] = *b"STRATAPC";
/// The `.spca` format version written and read.
pub const SPCA_VERSION: u32 = 1;
/// Bytes before the means: magic, version, rows, columns, k, cell size.
const SPCA_HEADER: usize = 8 + 4 * 4 + 8;

/// Why a PCA could not be computed.
#[derive(Debug, Error, PartialEq)]
pub enum PcaError {
    #[error(
        "PCA: {rows}×{cols} grid with {len} samples; allowed: rows × cols samples, 2 to {max} columns and at least 2 rows",
        max = MAX_PCA_COLUMNS
    )]
    Shape { rows: usize, cols: usize, len: usize },
    #[error("PCA: sample {index} is {value}; allowed: finite numbers")]
    NotFinite { index: usize, value: f64 },
    #[error("PCA: {k} components; allowed: 1 to {max} (the number of columns)")]
    Components { k: usize, max: usize },
}

/// The principal components of a grid.
#[derive(Clone, Debug)]
pub struct Pca {
    rows: usize,
    cols: usize,
    means: Vec<f64>,
    /// Eigenvalues of the covariance, falling.
    eigenvalues: Vec<f64>,
    /// Component `i` is `components[i·cols .. (i+1)·cols]`, unit length.
    components: Vec<f64>,
}

/// How far a reconstruction is from the data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReconstructionError {
    /// `‖X − X̂‖² / ‖X − x̄‖²` in percent (0 when the data is constant).
    pub lost_percent: f64,
    /// Root mean square of `X − X̂`, in the data's units.
    pub rmse: f64,
    /// Largest `|X − X̂|`, in the data's units.
    pub max_error: f64,
}

impl Pca {
    /// Analyses `data` (`rows × cols`, row-major).
    pub fn fit(rows: usize, cols: usize, data: &[f64]) -> Result<Self, PcaError> {
        if rows < 2 || !(2..=MAX_PCA_COLUMNS).contains(&cols) || data.len() != rows * cols {
            return Err(PcaError::Shape { rows, cols, len: data.len() });
        }
        if let Some((index, &value)) = data.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(PcaError::NotFinite { index, value });
        }
        let mut means = vec![0.0; cols];
        for row in data.chunks_exact(cols) {
            means.iter_mut().zip(row).for_each(|(m, v)| *m += v);
        }
        means.iter_mut().for_each(|m| *m /= rows as f64);
        let mut cov = vec![0.0; cols * cols];
        let mut centred = vec![0.0; cols];
        for row in data.chunks_exact(cols) {
            centred.iter_mut().zip(row.iter().zip(&means)).for_each(|(c, (v, m))| *c = v - m);
            for i in 0..cols {
                let ci = centred[i];
                let out = &mut cov[i * cols..(i + 1) * cols];
                out[i..].iter_mut().zip(&centred[i..]).for_each(|(o, cj)| *o += ci * cj);
            }
        }
        for i in 0..cols {
            for j in 0..i {
                cov[i * cols + j] = cov[j * cols + i];
            }
        }
        let (eigenvalues, vectors) = symmetric_eigen(&mut cov, cols);
        // `vectors` holds eigenvector j in column j; store them as rows.
        let mut components = vec![0.0; cols * cols];
        for j in 0..cols {
            for i in 0..cols {
                components[j * cols + i] = vectors[i * cols + j];
            }
        }
        Ok(Self { rows, cols, means, eigenvalues, components })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn means(&self) -> &[f64] {
        &self.means
    }

    /// Eigenvalues of the covariance (the variance each component explains, times rows), falling.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.eigenvalues
    }

    /// Principal component `i` (unit length).
    pub fn component(&self, i: usize) -> &[f64] {
        &self.components[i * self.cols..(i + 1) * self.cols]
    }

    fn check_k(&self, k: usize) -> Result<(), PcaError> {
        if !(1..=self.cols).contains(&k) {
            return Err(PcaError::Components { k, max: self.cols });
        }
        Ok(())
    }

    /// The scores of each row of `data` on the first `k` components (`rows × k`).
    pub fn scores(&self, data: &[f64], k: usize) -> Result<Vec<f64>, PcaError> {
        self.check_k(k)?;
        if data.len() != self.rows * self.cols {
            return Err(PcaError::Shape { rows: self.rows, cols: self.cols, len: data.len() });
        }
        let mut scores = Vec::with_capacity(self.rows * k);
        for row in data.chunks_exact(self.cols) {
            for i in 0..k {
                let v = self.component(i);
                scores.push(row.iter().zip(&self.means).zip(v).map(|((x, m), v)| (x - m) * v).sum());
            }
        }
        Ok(scores)
    }

    /// `data` reconstructed from its first `k` components.
    pub fn reconstruct(&self, data: &[f64], k: usize) -> Result<Vec<f64>, PcaError> {
        let scores = self.scores(data, k)?;
        let mut out = Vec::with_capacity(data.len());
        for s in scores.chunks_exact(k) {
            out.extend(
                (0..self.cols)
                    .map(|c| self.means[c] + (0..k).map(|i| s[i] * self.components[i * self.cols + c]).sum::<f64>()),
            );
        }
        Ok(out)
    }

    /// How far `reconstruction` is from `data`.
    pub fn error(&self, data: &[f64], reconstruction: &[f64]) -> ReconstructionError {
        let total: f64 = data
            .chunks_exact(self.cols)
            .flat_map(|row| row.iter().zip(&self.means).map(|(x, m)| (x - m) * (x - m)))
            .sum();
        let (mut lost, mut max_error) = (0.0, 0.0f64);
        for (x, y) in data.iter().zip(reconstruction) {
            lost += (x - y) * (x - y);
            max_error = max_error.max((x - y).abs());
        }
        ReconstructionError {
            lost_percent: if total > 0.0 { 100.0 * lost / total } else { 0.0 },
            rmse: (lost / data.len().max(1) as f64).sqrt(),
            max_error,
        }
    }
}

/// Eigenvalues and eigenvectors of the symmetric `n × n` matrix `a` (row-major; destroyed) by
/// cyclic Jacobi rotations. Returns the eigenvalues falling and the eigenvectors as the columns
/// of an `n × n` row-major matrix, in the same order (ties keep their index order).
pub fn symmetric_eigen(a: &mut [f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0.0; n * n];
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    let norm: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..64 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].powi(2))
            .sum();
        if off <= norm * 1e-30 || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // A ← A·P (columns p, q), then A ← Pᵀ·A (rows p, q), V ← V·P.
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[j * n + j].total_cmp(&a[i * n + i]).then(i.cmp(&j)));
    let values = order.iter().map(|&i| a[i * n + i]).collect();
    let mut vectors = vec![0.0; n * n];
    for (col, &i) in order.iter().enumerate() {
        for r in 0..n {
            vectors[r * n + col] = v[r * n + i];
        }
    }
    (values, vectors)
}

/// What a k-component reconstruction needs, as stored in a `.spca` file.
#[derive(Clone, Debug, PartialEq)]
pub struct PcaModel {
    pub rows: usize,
    pub cols: usize,
    pub k: usize,
    /// Edge of a cell of the original grid (metres for a DEM); carried, not used to reconstruct.
    pub cell_size: f64,
    /// `cols` column means.
    pub means: Vec<f32>,
    /// `k × cols`: component `i` is `components[i·cols .. (i+1)·cols]`.
    pub components: Vec<f32>,
    /// `rows × k`: the scores of row `r` are `scores[r·k .. (r+1)·k]`.
    pub scores: Vec<f32>,
}

impl PcaModel {
    /// The first `k` components of `pca` and the scores of `data` on them.
    pub fn new(pca: &Pca, data: &[f64], k: usize, cell_size: f64) -> Result<Self, PcaError> {
        let scores = pca.scores(data, k)?;
        Ok(Self {
            rows: pca.rows,
            cols: pca.cols,
            k,
            cell_size,
            means: pca.means.iter().map(|&m| m as f32).collect(),
            components: pca.components[..k * pca.cols].iter().map(|&v| v as f32).collect(),
            scores: scores.iter().map(|&s| s as f32).collect(),
        })
    }

    /// The reconstructed grid (`rows × cols`, row-major): `x̄ + scores · components`.
    pub fn heights(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.rows * self.cols);
        for s in self.scores.chunks_exact(self.k) {
            out.extend((0..self.cols).map(|c| {
                self.means[c] as f64
                    + (0..self.k).map(|i| s[i] as f64 * self.components[i * self.cols + c] as f64).sum::<f64>()
            }));
        }
        out
    }

    /// The file's byte count for a header's dimensions.
    pub fn file_len(rows: usize, cols: usize, k: usize) -> u64 {
        SPCA_HEADER as u64 + 4 * (cols as u64 + (k as u64) * (cols as u64) + (rows as u64) * (k as u64)) + 4
    }

    /// The largest `.spca` file read.
    pub fn max_file_len() -> u64 {
        Self::file_len(MAX_PCA_SIDE, MAX_PCA_SIDE, MAX_PCA_COMPONENTS)
    }

    /// The `.spca` bytes of the model.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_len(self.rows, self.cols, self.k) as usize);
        out.extend_from_slice(&SPCA_MAGIC);
        out.extend_from_slice(&SPCA_VERSION.to_le_bytes());
        for n in [self.rows, self.cols, self.k] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.cell_size.to_le_bytes());
        for v in self.means.iter().chain(&self.components).chain(&self.scores) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&crc32fast::hash(&out).to_le_bytes());
        out
    }

    /// Writes the model as a `.spca` file.
    pub fn save(&self, path: &Path) -> Result<(), HeightmapError> {
        std::fs::write(path, self.to_bytes())
            .map_err(|e| HeightmapError::Write { path: path.into(), message: e.to_string() })
    }

    /// Reads a `.spca` file held in memory; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        let bad = |field: &'static str, value: String, allowed: String| HeightmapError::Spca {
            path: path.into(),
            field,
            value,
            allowed,
        };
        if bytes.len() < SPCA_HEADER + 4 {
            return Err(bad(
                "length",
                format!("{} bytes", bytes.len()),
                format!("at least {} bytes (a header)", SPCA_HEADER + 4),
            ));
        }
        if bytes[..8] != SPCA_MAGIC {
            return Err(bad("magic", format!("{:?}", String::from_utf8_lossy(&bytes[..8])), "\"STRATAPC\"".into()));
        }
        let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let version = u32_at(8);
        if version != SPCA_VERSION {
            let allowed = if version > SPCA_VERSION {
                format!("{SPCA_VERSION} (the file was made by a newer Strata)")
            } else {
                SPCA_VERSION.to_string()
            };
            return Err(bad("version", version.to_string(), allowed));
        }
        let (rows, cols, k) = (u32_at(12) as usize, u32_at(16) as usize, u32_at(20) as usize);
        for (field, n) in [("rows", rows), ("cols", cols)] {
            if !(1..=MAX_PCA_SIDE).contains(&n) {
                return Err(bad(field, n.to_string(), format!("1 to {MAX_PCA_SIDE}")));
            }
        }
        let max_k = cols.min(MAX_PCA_COMPONENTS);
        if !(1..=max_k).contains(&k) {
            return Err(bad(
                "k",
                k.to_string(),
                format!("1 to {max_k} (at most the columns, at most {MAX_PCA_COMPONENTS})"),
            ));
        }
        let len = Self::file_len(rows, cols, k);
        if bytes.len() as u64 != len {
            return Err(bad(
                "length",
                format!("{} bytes", bytes.len()),
                format!("{len} bytes for {rows}×{cols} with k = {k}"),
            ));
        }
        let body = bytes.len() - 4;
        let stored = u32_at(body);
        let computed = crc32fast::hash(&bytes[..body]);
        if stored != computed {
            return Err(bad(
                "crc32",
                format!("{stored:#010x}"),
                format!("{computed:#010x}, the checksum of the bytes before it"),
            ));
        }
        let mut eight = [0u8; 8];
        eight.copy_from_slice(&bytes[24..32]);
        let cell_size = f64::from_le_bytes(eight);
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(bad("cell_size", cell_size.to_string(), "a positive number".into()));
        }
        let floats: Vec<f32> =
            bytes[SPCA_HEADER..body].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(i) = floats.iter().position(|v| !v.is_finite()) {
            return Err(bad("value", format!("{} at float {i}", floats[i]), "finite numbers".into()));
        }
        let (means, rest) = floats.split_at(cols);
        let (components, scores) = rest.split_at(k * cols);
        Ok(Self {
            rows,
            cols,
            k,
            cell_size,
            means: means.to_vec(),
            components: components.to_vec(),
            scores: scores.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic bumpy grid (no structure that PCA would find exactly).
    fn bumpy(rows: usize, cols: usize) -> Vec<f64> {
        (0..rows * cols)
            .map(|i| {
                let (r, c) = ((i / cols) as f64, (i % cols) as f64);
                100.0
                    + 10.0 * (r * 0.3).sin() * (c * 0.2).cos()
                    + 3.0 * ((r * c * 0.37).sin())
                    + 0.01 * (i as f64).sqrt()
            })
            .collect()
    }

    #[test]
    fn jacobi_diagonalises_a_symmetric_matrix() {
        let m = [4.0, 1.0, 2.0, 1.0, 3.0, 0.5, 2.0, 0.5, 5.0];
        let (values, vectors) = symmetric_eigen(&mut m.clone(), 3);
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
        assert!((values.iter().sum::<f64>() - 12.0).abs() < 1e-12, "the trace is kept");
        for j in 0..3 {
            // M·v = λ·v, |v| = 1.
            let v: Vec<f64> = (0..3).map(|i| vectors[i * 3 + j]).collect();
            assert!((v.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
            for i in 0..3 {
                let mv: f64 = (0..3).map(|c| m[i * 3 + c] * v[c]).sum();
                assert!((mv - values[j] * v[i]).abs() < 1e-10, "component {j}");
            }
        }
    }

    #[test]
    fn all_components_give_the_data_back() {
        let (rows, cols) = (23, 17);
        let data = bumpy(rows, cols);
        let pca = Pca::fit(rows, cols, &data).unwrap();
        let back = pca.reconstruct(&data, cols).unwrap();
        let err = pca.error(&data, &back);
        assert!(err.max_error < 1e-9, "{err:?}");
        assert!(err.lost_percent < 1e-18, "{err:?}");
    }

    #[test]
    fn detail_lost_falls_with_more_components() {
        let (rows, cols) = (40, 33);
        let data = bumpy(rows, cols);
        let pca = Pca::fit(rows, cols, &data).unwrap();
        let lost: Vec<f64> =
            (1..=cols).map(|k| pca.error(&data, &pca.reconstruct(&data, k).unwrap()).lost_percent).collect();
        assert!(lost[0] > 1.0 && lost[0] < 100.0, "{lost:?}");
        assert!(lost.windows(2).all(|w| w[1] <= w[0] + 1e-9), "{lost:?}");
        // Lost detail is the share of the eigenvalues left out.
        let total: f64 = pca.eigenvalues().iter().sum();
        let left: f64 = pca.eigenvalues()[4..].iter().sum();
        assert!((lost[3] - 100.0 * left / total).abs() < 1e-6, "{} vs {}", lost[3], 100.0 * left / total);
    }

    #[test]
    fn a_rank_two_grid_is_exact_with_two_components() {
        let (rows, cols) = (30, 20);
        let data: Vec<f64> = (0..rows * cols)
            .map(|i| {
                let (r, c) = ((i / cols) as f64, (i % cols) as f64);
                50.0 + c * 0.5 + (r * 0.4).sin() * (c * 0.3).cos() * 7.0 + (r * 0.11).cos() * (c * c * 0.01) * 3.0
            })
            .collect();
        let pca = Pca::fit(rows, cols, &data).unwrap();
        let one = pca.error(&data, &pca.reconstruct(&data, 1).unwrap());
        let two = pca.error(&data, &pca.reconstruct(&data, 2).unwrap());
        assert!(one.lost_percent > 1.0, "{one:?}");
        assert!(two.max_error < 1e-9 && two.lost_percent < 1e-18, "{two:?}");
    }

    #[test]
    fn bad_shapes_and_k_are_refused() {
        assert_eq!(Pca::fit(3, 1, &[1.0; 3]).unwrap_err(), PcaError::Shape { rows: 3, cols: 1, len: 3 });
        assert!(matches!(Pca::fit(2, 2, &[1.0; 3]).unwrap_err(), PcaError::Shape { .. }));
        assert_eq!(
            Pca::fit(2, 2, &[1.0, f64::NAN, 0.0, 0.0]).unwrap_err().to_string(),
            "PCA: sample 1 is NaN; allowed: finite numbers"
        );
        let pca = Pca::fit(2, 2, &[1.0, 2.0, 3.0, 5.0]).unwrap();
        assert_eq!(pca.reconstruct(&[1.0, 2.0, 3.0, 5.0], 3).unwrap_err(), PcaError::Components { k: 3, max: 2 });
        assert!(pca.scores(&[1.0, 2.0, 3.0, 5.0], 0).is_err());
    }

    #[test]
    fn spca_files_round_trip_and_give_the_reconstruction() {
        let (rows, cols) = (25, 19);
        let data = bumpy(rows, cols);
        let pca = Pca::fit(rows, cols, &data).unwrap();
        let model = PcaModel::new(&pca, &data, 4, 90.0).unwrap();
        let bytes = model.to_bytes();
        assert_eq!(bytes.len() as u64, PcaModel::file_len(rows, cols, 4));
        let back = PcaModel::from_bytes(&bytes, Path::new("m.spca")).unwrap();
        assert_eq!(back, model);
        // The stored reconstruction is the in-memory one, to f32 rounding of the stored values.
        let exact = pca.reconstruct(&data, 4).unwrap();
        let heights = back.heights();
        assert!(exact.iter().zip(&heights).all(|(a, b)| (a - b).abs() < 1e-3), "f32 storage");
    }

    #[test]
    fn broken_spca_files_give_errors_naming_the_field() {
        let data = bumpy(6, 5);
        let pca = Pca::fit(6, 5, &data).unwrap();
        let good = PcaModel::new(&pca, &data, 2, 1.0).unwrap().to_bytes();
        let err = |bytes: &[u8]| PcaModel::from_bytes(bytes, Path::new("x.spca")).unwrap_err().to_string();
        assert_eq!(err(&good[..10]), "heightmap `x.spca`: length is 10 bytes; allowed: at least 36 bytes (a header)");
        let mut b = good.clone();
        b[0] = b'X';
        assert!(err(&b).contains("magic is \"XTRATAPC\"; allowed: \"STRATAPC\""), "{}", err(&b));
        let mut b = good.clone();
        b[8] = 2;
        assert!(err(&b).contains("version is 2; allowed: 1 (the file was made by a newer Strata)"), "{}", err(&b));
        let mut b = good.clone();
        b[20] = 6;
        assert!(err(&b).contains("k is 6; allowed: 1 to 5"), "{}", err(&b));
        let mut b = good.clone();
        b[12..16].copy_from_slice(&100_000u32.to_le_bytes());
        assert!(err(&b).contains("rows is 100000; allowed: 1 to 8192"), "{}", err(&b));
        let e = err(&good[..good.len() - 1]);
        assert!(e.contains("length is 143 bytes; allowed: 144 bytes for 6×5 with k = 2"), "{e}");
        let mut b = good.clone();
        b[40] ^= 1;
        assert!(err(&b).contains("crc32 is"), "{}", err(&b));
        // A non-finite value with a valid checksum.
        let mut b = good[..good.len() - 4].to_vec();
        b[32..36].copy_from_slice(&f32::INFINITY.to_le_bytes());
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        assert!(err(&b).contains("value is inf at float 0; allowed: finite numbers"), "{}", err(&b));
    }
}
