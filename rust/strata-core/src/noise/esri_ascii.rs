//! ESRI ASCII grids (`.asc`): the text raster format of many public elevation models (the UK
//! Environment Agency's LiDAR tiles, USGS and landlab samples), read as a heightmap.
//!
//! A file is a header of `key value` lines followed by `ncols × nrows` numbers, the first row
//! the northernmost, separated by any whitespace (rows may wrap over lines). Header keys are
//! read case-insensitively and in any order: `ncols`, `nrows`, `xllcorner` or `xllcenter`,
//! `yllcorner` or `yllcenter`, `cellsize`, and the optional `nodata_value`. Every other key, a key
//! given twice, a corner given both ways, or a value out of range is an error that names the
//! file, the line, the key and value, and what is allowed (law: Clear errors).
//!
//! No-data cells are filled deterministically, outwards from the valid data in layers: a cell
//! one step (4-neighbour) from valid data takes the mean of its valid neighbours, then a cell two
//! steps away the mean of its neighbours filled in the layer before, and so on. A grid without a
//! single valid cell is refused.
//!
//! Reading is bounded: at most [`MAX_ASC_BYTES`] bytes, at most
//! [`MAX_HEIGHTMAP_SIDE`](crate::noise::heightmap_error::MAX_HEIGHTMAP_SIDE) columns and rows, checked
//! from the header before a sample is stored.
//!
//! May use: `noise::heightmap` (its error type and size limit).

use crate::noise::heightmap_error::{HeightmapError, MAX_HEIGHTMAP_SIDE};
use std::path::Path;

/// The largest `.asc` file read: 16 bytes a sample at the largest allowed grid.
pub const MAX_ASC_BYTES: u64 = 16 * (MAX_HEIGHTMAP_SIDE as u64) * (MAX_HEIGHTMAP_SIDE as u64);

/// The header keys read, as errors list them.
const KEYS: &str = "ncols, nrows, xllcorner or xllcenter, yllcorner or yllcenter, cellsize, nodata_value";

/// An elevation grid read from an ESRI ASCII file, no-data cells filled.
#[derive(Clone, Debug, PartialEq)]
pub struct AsciiGrid {
    pub ncols: usize,
    pub nrows: usize,
    /// Edge of a cell, in the file's units (metres for the elevation models Strata ships).
    pub cell_size: f64,
    /// The lower-left corner of the lower-left cell (a `…center` header is converted).
    pub x_ll_corner: f64,
    pub y_ll_corner: f64,
    /// The no-data marker, when the header has one.
    pub nodata: Option<f64>,
    /// Samples, row-major, the first row the northernmost.
    pub values: Vec<f64>,
    /// How many cells were no-data and were filled.
    pub filled: usize,
}

impl AsciiGrid {
    /// Parses an ESRI ASCII grid held in memory; `path` names it in errors.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self, HeightmapError> {
        if bytes.len() as u64 > MAX_ASC_BYTES {
            return Err(HeightmapError::AscBytes { path: path.into(), len: bytes.len() as u64, max: MAX_ASC_BYTES });
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
            asc_error(path, line, "text", "bytes that are not UTF-8", "an ASCII text file")
        })?;
        let mut header = Header::default();
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).peekable();
        // The header: lines whose first word is not a number.
        while let Some(&(line, l)) = lines.peek() {
            let mut words = l.split_whitespace();
            let Some(key) = words.next() else {
                lines.next();
                continue;
            };
            if key.parse::<f64>().is_ok() {
                break;
            }
            let value = words.next().unwrap_or("");
            if let Some(extra) = words.next() {
                return Err(asc_error(path, line, key, extra, "one value after a header key"));
            }
            header.set(path, line, key, value)?;
            lines.next();
        }
        let (ncols, nrows, cell_size, x_ll_corner, y_ll_corner) = header.finish(path)?;
        let expected = ncols * nrows;
        let mut values = Vec::with_capacity(expected);
        let mut last_line = 0;
        for (line, l) in lines {
            last_line = line;
            for word in l.split_whitespace() {
                if values.len() == expected {
                    return Err(asc_error(
                        path,
                        line,
                        "sample",
                        word,
                        "no samples after ncols × nrows (the file has more than the header promises)",
                    ));
                }
                match word.parse::<f64>() {
                    Ok(v) if v.is_finite() => values.push(v),
                    _ => return Err(asc_error(path, line, "sample", word, "a finite number")),
                }
            }
        }
        if values.len() != expected {
            return Err(HeightmapError::AscCount { path: path.into(), line: last_line, found: values.len(), expected });
        }
        let filled = fill_nodata(ncols, nrows, &mut values, header.nodata)
            .ok_or_else(|| HeightmapError::AllVoid { path: path.into() })?;
        Ok(Self { ncols, nrows, cell_size, x_ll_corner, y_ll_corner, nodata: header.nodata, values, filled })
    }

    /// Writes the grid as ESRI ASCII text (corner registration; no `nodata_value`, as every cell
    /// is filled). Integral samples are written without a fraction.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "ncols {}\nnrows {}\nxllcorner {}\nyllcorner {}\ncellsize {}\n",
            self.ncols, self.nrows, self.x_ll_corner, self.y_ll_corner, self.cell_size
        );
        for row in self.values.chunks(self.ncols.max(1)) {
            let words: Vec<String> = row.iter().map(|v| v.to_string()).collect();
            out.push_str(&words.join(" "));
            out.push('\n');
        }
        out
    }

    /// The sample at column `c`, row `r` (row 0 the northernmost).
    pub fn at(&self, c: usize, r: usize) -> f64 {
        self.values[r * self.ncols + c]
    }
}

/// The header as read so far: each key at most once.
#[derive(Default)]
struct Header {
    ncols: Option<usize>,
    nrows: Option<usize>,
    x: Option<(f64, bool)>,
    y: Option<(f64, bool)>,
    cell_size: Option<f64>,
    nodata: Option<f64>,
    seen: Vec<String>,
}

impl Header {
    fn set(&mut self, path: &Path, line: usize, key: &str, value: &str) -> Result<(), HeightmapError> {
        let lower = key.to_ascii_lowercase();
        let group = match lower.as_str() {
            "xllcorner" | "xllcenter" => "xll",
            "yllcorner" | "yllcenter" => "yll",
            "ncols" | "nrows" | "cellsize" | "nodata_value" => lower.as_str(),
            _ => return Err(asc_error(path, line, key, value, KEYS)),
        };
        if self.seen.iter().any(|s| s == group) {
            let allowed = if group.len() == 3 {
                "one of xllcorner/xllcenter (or yllcorner/yllcenter), once"
            } else {
                "each header key once"
            };
            return Err(asc_error(path, line, key, value, allowed));
        }
        self.seen.push(group.to_string());
        let number = |allowed: &'static str| -> Result<f64, HeightmapError> {
            value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| asc_error(path, line, key, value, allowed))
        };
        match lower.as_str() {
            "ncols" | "nrows" => {
                let n = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| (1..=MAX_HEIGHTMAP_SIDE as u64).contains(&n))
                    .ok_or_else(|| asc_error(path, line, key, value, "a whole number from 1 to 8192"))?;
                if lower == "ncols" {
                    self.ncols = Some(n as usize);
                } else {
                    self.nrows = Some(n as usize);
                }
            }
            "cellsize" => {
                let v = number("a positive number")?;
                if v <= 0.0 {
                    return Err(asc_error(path, line, key, value, "a positive number"));
                }
                self.cell_size = Some(v);
            }
            "nodata_value" => self.nodata = Some(number("a finite number")?),
            "xllcorner" | "xllcenter" => self.x = Some((number("a finite number")?, lower.ends_with("center"))),
            _ => self.y = Some((number("a finite number")?, lower.ends_with("center"))),
        }
        Ok(())
    }

    /// The required keys: columns, rows, cell size and the lower-left corner.
    fn finish(&self, path: &Path) -> Result<(usize, usize, f64, f64, f64), HeightmapError> {
        let missing = |key: &'static str| HeightmapError::AscMissing { path: path.into(), key };
        let ncols = self.ncols.ok_or_else(|| missing("ncols"))?;
        let nrows = self.nrows.ok_or_else(|| missing("nrows"))?;
        let cell = self.cell_size.ok_or_else(|| missing("cellsize"))?;
        let (x, x_center) = self.x.ok_or_else(|| missing("xllcorner or xllcenter"))?;
        let (y, y_center) = self.y.ok_or_else(|| missing("yllcorner or yllcenter"))?;
        let corner = |v: f64, center: bool| if center { v - cell / 2.0 } else { v };
        Ok((ncols, nrows, cell, corner(x, x_center), corner(y, y_center)))
    }
}

fn asc_error(path: &Path, line: usize, key: &str, value: &str, allowed: &'static str) -> HeightmapError {
    // A long token is cut so the message stays readable.
    let value: String = value.chars().take(40).collect();
    HeightmapError::Asc { path: path.into(), line, key: key.to_string(), value, allowed }
}

/// Fills the cells equal to `nodata` outwards from the valid ones (see the module docs); returns
/// how many were filled, or `None` when no cell is valid.
pub fn fill_nodata(ncols: usize, nrows: usize, values: &mut [f64], nodata: Option<f64>) -> Option<usize> {
    let Some(nodata) = nodata else {
        return (!values.is_empty()).then_some(0);
    };
    const UNSET: u32 = u32::MAX;
    let mut layer = vec![UNSET; values.len()];
    let mut order: Vec<usize> = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        if *v != nodata {
            layer[i] = 0;
            order.push(i);
        }
    }
    if order.is_empty() {
        return None;
    }
    let valid = order.len();
    let neighbours = |i: usize| {
        let (c, r) = (i % ncols, i / ncols);
        [
            (c > 0).then(|| i - 1),
            (c + 1 < ncols).then(|| i + 1),
            (r > 0).then(|| i - ncols),
            (r + 1 < nrows).then(|| i + ncols),
        ]
    };
    // Breadth-first from every valid cell: `order` lists cells by layer, each layer in the order
    // it was reached, so the fill below is the same on every run.
    let mut head = 0;
    while head < order.len() {
        let i = order[head];
        head += 1;
        for j in neighbours(i).into_iter().flatten() {
            if layer[j] == UNSET {
                layer[j] = layer[i] + 1;
                order.push(j);
            }
        }
    }
    for &i in &order[valid..] {
        let (sum, count) = neighbours(i)
            .into_iter()
            .flatten()
            .filter(|&j| layer[j] < layer[i])
            .fold((0.0, 0u32), |(s, n), j| (s + values[j], n + 1));
        values[i] = sum / count as f64;
    }
    Some(order.len() - valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AsciiGrid, HeightmapError> {
        AsciiGrid::parse(text.as_bytes(), Path::new("tile.asc"))
    }

    #[test]
    fn reads_a_grid_with_any_key_order_and_case() {
        let g =
            parse("NCOLS 3\nnrows 2\nCellSize 5\nyllcenter 102.5\nXLLCORNER 10\nNODATA_value -9999\n1 2 3\n4 5 6\n")
                .unwrap();
        assert_eq!((g.ncols, g.nrows, g.cell_size), (3, 2, 5.0));
        assert_eq!((g.x_ll_corner, g.y_ll_corner), (10.0, 100.0));
        assert_eq!(g.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!((g.nodata, g.filled), (Some(-9999.0), 0));
        // No nodata line; rows wrapped over lines and blank lines between.
        let g = parse("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n\n1.5\n2 -3e1\n\n4\n").unwrap();
        assert_eq!(g.values, vec![1.5, 2.0, -30.0, 4.0]);
        assert_eq!(g.nodata, None);
        // Round trip through the writer.
        assert_eq!(parse(&g.to_text()).unwrap().values, g.values);
    }

    #[test]
    fn nodata_is_filled_outwards_by_neighbour_means() {
        // 4×3, the top-right corner and the middle of the bottom row missing.
        let text = "ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value -1\n\
                    0 2 -1 -1\n4 6 8 10\n12 -1 -1 18\n";
        let g = parse(text).unwrap();
        assert_eq!(g.filled, 4);
        // Layer 1: (2,0) from 2 and 8 → 5; (3,0) from 10 → 10; (1,2) from 12 and 6 → 9; (2,2)
        // from 8 and 18 → 13. All of these are one step from valid data.
        assert_eq!(g.at(2, 0), 5.0);
        assert_eq!(g.at(3, 0), 10.0);
        assert_eq!(g.at(1, 2), 9.0);
        assert_eq!(g.at(2, 2), 13.0);
        // A cell two steps away takes the mean of its layer-1 neighbours.
        let mut v = vec![1.0, -1.0, -1.0];
        assert_eq!(fill_nodata(3, 1, &mut v, Some(-1.0)), Some(2));
        assert_eq!(v, vec![1.0, 1.0, 1.0]);
        let mut v = vec![3.0, -1.0, -1.0, -1.0, 7.0];
        fill_nodata(5, 1, &mut v, Some(-1.0));
        assert_eq!(v, vec![3.0, 3.0, 5.0, 7.0, 7.0]);
        // Deterministic.
        assert_eq!(parse(text).unwrap(), g);
        let e = parse("ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nnodata_value 7\n7 7\n").unwrap_err();
        assert!(matches!(e, HeightmapError::AllVoid { .. }), "{e}");
    }

    #[test]
    fn broken_files_give_errors_naming_line_key_and_what_is_allowed() {
        let head = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
        let cases: &[(&str, &str)] = &[
            (
                "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 0\n1 2\n3 4\n",
                "heightmap `tile.asc`: line 5: `cellsize` = `0`; allowed: a positive number",
            ),
            (
                "ncols 9000\nnrows 2\n",
                "heightmap `tile.asc`: line 1: `ncols` = `9000`; allowed: a whole number from 1 to 8192",
            ),
            ("ncols -3\n", "line 1: `ncols` = `-3`; allowed: a whole number from 1 to 8192"),
            ("nrows 2\nbyteorder msbfirst\n", "line 2: `byteorder` = `msbfirst`; allowed: ncols, nrows, xllcorner"),
            ("ncols 2\nNCOLS 2\n", "line 2: `NCOLS` = `2`; allowed: each header key once"),
            ("xllcorner 1\nxllcenter 1\n", "line 2: `xllcenter` = `1`; allowed: one of xllcorner/xllcenter"),
            ("ncols 2 3\n", "line 1: `ncols` = `3`; allowed: one value after a header key"),
            ("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\n1 2 3 4\n", "the header has no `cellsize`"),
            ("ncols 2\nnrows 2\ncellsize 1\nyllcorner 0\n1 2 3 4\n", "the header has no `xllcorner or xllcenter`"),
            ("", "the header has no `ncols`"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("tile.asc"), "{text:?}: {e}");
        }
        let e = parse(&format!("{head}1 2\n3 x4\n")).unwrap_err().to_string();
        assert_eq!(e, "heightmap `tile.asc`: line 7: `sample` = `x4`; allowed: a finite number");
        let e = parse(&format!("{head}1 2\n3 NaN\n")).unwrap_err().to_string();
        assert!(e.contains("`NaN`; allowed: a finite number"), "{e}");
        let e = parse(&format!("{head}1 2\n3\n")).unwrap_err().to_string();
        assert_eq!(
            e,
            "heightmap `tile.asc`: the samples end at line 7 after 3 of them; allowed: exactly ncols × nrows = 4"
        );
        let e = parse(&format!("{head}1 2\n3 4\n5\n")).unwrap_err().to_string();
        assert!(e.contains("line 8: `sample` = `5`; allowed: no samples after ncols × nrows"), "{e}");
        let e = AsciiGrid::parse(b"ncols 2\n\xff\xfe", Path::new("bin.asc")).unwrap_err().to_string();
        assert!(e.contains("bin.asc") && e.contains("line 2") && e.contains("ASCII text"), "{e}");
    }
}
