//! The import-layer and file-size check (`cargo xtask lint layers`, the first step of
//! `cargo xtask test`). It reads source text only and compiles nothing, so it takes
//! milliseconds. What each crate gets is one entry of [`CRATES`]:
//!
//! * strata-core: a file under `rust/strata-core/src/<layer>/` may reach (through `crate::`
//!   paths, in `use` statements or inline) only its own layer and the layers before it in
//!   [`CORE_LAYERS`]; gen3d and gen2d are peers and never reach each other.
//! * strata-godot: the same with [`GODOT_LAYERS`] (base → resources → host → nodes → sync).
//! * Every crate's modules (one per file) import each other without cycles.
//! * No file of any crate has more than [`MAX_CODE_LINES`] lines of code
//!   ([`code_lines`]: lines that are not blank and not only comments, outside `#[cfg(test)]`
//!   items; string literals count).
//! * strata-core's Cargo.toml names no Godot crate: the core never imports Godot.
//!
//! Comments, string and char literals, and test code (an item behind `#[cfg(test)]`, such as
//! `mod tests { ... }`, or a file starting with `#![cfg(test)]`) are not read. A path is
//! charged to the file that defines what it names: first the longest module (file) it names
//! (`crate::base::simd::avx2` is a use of `base/simd.rs`, `crate::gen2d::TileGrid` one of
//! `gen2d/mod.rs`), then through re-exports: `crate::mesh::Mesher`, which `mesh/mod.rs`
//! re-exports with `pub use greedy::Mesher`, is a use of `mesh/greedy.rs`. A re-export is not a
//! use of the file that writes it unless its own code uses the name too, so a folder's
//! `mod.rs` re-exporting its files makes no edge, and a file that imports a sibling's name
//! through its folder's `mod.rs` makes the same edge as importing it from the sibling: a cycle
//! through a `mod.rs` re-export is reported as the cycle between the files that define the
//! names (sound: every re-exported name is followed to its file; a glob re-export is charged
//! to every module it re-exports). Paths relative to a file are read in `use` items
//! (`use super::x`, `use child::y`) and inline (`super::f()`, `child::Type`), but a method call
//! on a type (`self.f()`, defined in another file's `impl`) is no import. Paths that reach the crate
//! root itself (`crate::step`) are not edges; root re-exports (`crate::WorldPreset`) are
//! followed like any other.
//!
//! Uses only [`crate::error`]. The parser and the checks work on in-memory text, which the
//! unit tests below use.

use crate::error::{Context, Result};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fs;
use std::path::Path;

/// strata-core's layers in dependency order; layers in one group are peers (neither may
/// import the other). A file may import its own layer and the groups before its own.
pub const CORE_LAYERS: &[&[&str]] = &[
    &["base"],
    &["preset"],
    &["noise"],
    &["automata"],
    &["gen3d", "gen2d"],
    &["light"],
    &["mesh", "nav"],
    &["stream"],
    &["persist"],
    &["net"],
];

/// strata-godot's layers in dependency order: leaf helpers, the designer's resources, what the
/// worlds share below the nodes, the nodes, and the network sync over them.
pub const GODOT_LAYERS: &[&[&str]] = &[&["base"], &["resources"], &["host"], &["nodes"], &["sync"]];

/// One `crate::` path found in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateRef {
    /// 1-based line of the path's last segment.
    pub line: usize,
    /// The segments after `crate::` (for a glob or `self` import, the path before it).
    pub path: Vec<String>,
    /// The path as written, normalised: `crate::a::b`, `crate::a::*`.
    pub text: String,
}

/// One source file of a crate: its path under `src/` ('/'-separated) and its text.
#[derive(Debug, Clone)]
pub struct Source {
    pub rel: String,
    pub text: String,
}

impl Source {
    #[cfg(test)]
    pub fn new(rel: &str, text: &str) -> Self {
        Source { rel: rel.to_string(), text: text.to_string() }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Blanks one range of `out` with spaces, keeping newlines so line numbers stay right.
fn blank(out: &mut [char], from: usize, to: usize) {
    fill(out, ' ', from, to);
}

/// Replaces one range of `out` with `with`, keeping newlines so line numbers stay right.
fn fill(out: &mut [char], with: char, from: usize, to: usize) {
    let to = to.min(out.len());
    for c in &mut out[from..to] {
        if *c != '\n' {
            *c = with;
        }
    }
}

/// The source with comments (line, nested block, doc) and string, raw-string and char
/// literals replaced by spaces; same length in chars, same line breaks.
pub fn blank_comments_and_literals(src: &str) -> Vec<char> {
    clean(src, ' ')
}

/// The source with comments replaced by spaces and every char of a string, raw-string or char
/// literal but its line breaks replaced by `literal`; same length in chars, same line breaks.
fn clean(src: &str, literal: char) -> Vec<char> {
    let s: Vec<char> = src.chars().collect();
    let mut out = s.clone();
    let n = s.len();
    let at = |k: usize| s.get(k).copied();
    let mut i = 0;
    while i < n {
        let c = s[i];
        if c == '/' && at(i + 1) == Some('/') {
            let end = (i..n).find(|&k| s[k] == '\n').unwrap_or(n);
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && at(i + 1) == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < n && depth > 0 {
                if s[j] == '/' && at(j + 1) == Some('*') {
                    depth += 1;
                    j += 2;
                } else if s[j] == '*' && at(j + 1) == Some('/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < n && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(n);
            fill(&mut out, literal, i, end);
            i = end;
        } else if c == 'r' && starts_raw_string(&s, i) {
            let mut j = i + 1;
            while at(j) == Some('#') {
                j += 1;
            }
            let hashes = j - i - 1;
            j += 1; // the opening quote
            let end = loop {
                if j >= n {
                    break n;
                }
                if s[j] == '"' && (1..=hashes).all(|h| at(j + h) == Some('#')) {
                    break j + 1 + hashes;
                }
                j += 1;
            };
            fill(&mut out, literal, i, end);
            i = end;
        } else if c == '\'' {
            if at(i + 1) == Some('\\') {
                // '\n', '\'', '\u{1F600}': skip the escaped char, then up to the closing quote.
                let end = (i + 3..n).find(|&k| s[k] == '\'').map_or(n, |k| k + 1);
                fill(&mut out, literal, i, end);
                i = end;
            } else if at(i + 2) == Some('\'') {
                fill(&mut out, literal, i, i + 3);
                i += 3;
            } else {
                i += 1; // a lifetime or a loop label
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Whether the `r` at `i` opens a raw string (`r"`, `r#"`, `br"`, `cr#"`), not an identifier.
fn starts_raw_string(s: &[char], i: usize) -> bool {
    let mut k = i;
    if k > 0 && (s[k - 1] == 'b' || s[k - 1] == 'c') {
        k -= 1;
    }
    if k > 0 && is_ident(s[k - 1]) {
        return false;
    }
    let mut j = i + 1;
    while s.get(j) == Some(&'#') {
        j += 1;
    }
    s.get(j) == Some(&'"')
}

fn skip_ws(code: &[char], mut i: usize) -> usize {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    i
}

fn read_ident(code: &[char], i: usize) -> (String, usize) {
    let mut j = i;
    while j < code.len() && is_ident(code[j]) {
        j += 1;
    }
    (code[i..j].iter().collect(), j)
}

/// Matches `tokens` at `i` (whitespace allowed between them); returns the end.
fn match_tokens(code: &[char], mut i: usize, tokens: &[&str]) -> Option<usize> {
    for t in tokens {
        i = skip_ws(code, i);
        let t: Vec<char> = t.chars().collect();
        if code.get(i..i + t.len())? != t.as_slice() {
            return None;
        }
        i += t.len();
    }
    Some(i)
}

/// The end of the item starting at `i`: after its `{ ... }` body or its `;`, or before a `,` or
/// an unbalanced closing bracket (an attribute on a field, an argument or a match arm).
fn item_end(code: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < code.len() {
        match code[i] {
            '(' | '[' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return i,
            ')' | ']' => depth -= 1,
            ';' if depth == 0 => return i + 1,
            ',' if depth == 0 => return i,
            '{' if depth == 0 => {
                let mut braces = 0usize;
                while i < code.len() {
                    match code[i] {
                        '{' => braces += 1,
                        '}' => {
                            braces -= 1;
                            if braces == 0 {
                                return i + 1;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Blanks test code in text already cleared of comments and literals: every item behind
/// `#[cfg(test)]` (with the attributes that follow it), and the whole file after `#![cfg(test)]`.
pub fn blank_test_items(code: &mut [char]) {
    let mut i = 0;
    while i < code.len() {
        if code[i] != '#' {
            i += 1;
            continue;
        }
        if match_tokens(code, i, &["#", "!", "[", "cfg", "(", "test", ")", "]"]).is_some() {
            let n = code.len();
            blank(code, i, n);
            return;
        }
        let Some(mut j) = match_tokens(code, i, &["#", "[", "cfg", "(", "test", ")", "]"]) else {
            i += 1;
            continue;
        };
        // Further outer attributes on the same item.
        while let Some(mut k) = match_tokens(code, j, &["#", "["]) {
            let mut depth = 1usize;
            while k < code.len() && depth > 0 {
                match code[k] {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                k += 1;
            }
            j = k;
        }
        let end = item_end(code, j);
        blank(code, i, end);
        i = end.max(i + 1);
    }
}

/// Every `crate::` (or `$crate::`) path in `src` outside comments, literals and test code:
/// `use` statements, grouped forms (`use crate::{a, b::{c, d}}`, each leaf separately) and
/// inline paths (`crate::a::b::f(x)`). The graph reads them with [`crate_refs_in`]; the unit
/// tests read them here.
#[cfg(test)]
pub fn crate_refs(src: &str) -> Vec<CrateRef> {
    let mut code = blank_comments_and_literals(src);
    blank_test_items(&mut code);
    crate_refs_in(&code)
}

/// The start of each line of `code`.
fn line_starts(code: &[char]) -> Vec<usize> {
    std::iter::once(0).chain(code.iter().enumerate().filter(|(_, c)| **c == '\n').map(|(k, _)| k + 1)).collect()
}

/// [`crate_refs`] of code already cleaned of comments, literals and test code.
fn crate_refs_in(code: &[char]) -> Vec<CrateRef> {
    paths_in(code, |word| word == "crate", false)
}

/// Inline paths of cleaned code that start with a word `starts` accepts (`super`, `self`, a
/// child module), such as `super::f()` or `debug_view::DebugView`; each path keeps its first
/// word. A word right after `::` continues another path and starts none.
fn relative_refs_in(code: &[char], starts: impl Fn(&str) -> bool) -> Vec<CrateRef> {
    let mut refs = paths_in(code, starts, true);
    for r in &mut refs {
        r.text = r.path.join("::");
    }
    refs
}

/// The paths of cleaned `code` that start with a word `starts` accepts and go on with `::`;
/// the word itself is the paths' first segment when `keep_first`.
fn paths_in(code: &[char], starts: impl Fn(&str) -> bool, keep_first: bool) -> Vec<CrateRef> {
    let parser = PathParser { code, line_starts: line_starts(code) };
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if is_ident_start(code[i]) && (i == 0 || !is_ident(code[i - 1])) {
            let (word, end) = read_ident(code, i);
            let before = code[..i].iter().rev().skip_while(|c| c.is_whitespace()).take(2);
            let after_path = before.eq([':', ':'].iter());
            // `$crate::` is the crate too; any other word must begin its path.
            if starts(&word) && (!after_path || !keep_first) {
                let j = skip_ws(code, end);
                if code.get(j..j + 2) == Some(&[':', ':']) {
                    let first = if keep_first { vec![word] } else { Vec::new() };
                    i = parser.tree(j + 2, first, &mut out);
                    continue;
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Parses use-trees and inline paths in cleaned code.
struct PathParser<'a> {
    code: &'a [char],
    line_starts: Vec<usize>,
}

impl PathParser<'_> {
    fn line(&self, i: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= i)
    }

    fn push(&self, out: &mut Vec<CrateRef>, path: Vec<String>, at: usize, glob: bool) {
        let mut text = String::from("crate");
        for seg in &path {
            text.push_str("::");
            text.push_str(seg);
        }
        if glob {
            text.push_str("::*");
        }
        out.push(CrateRef { line: self.line(at), path, text });
    }

    /// Parses the tree after `prefix::` starting at `i`; returns the position after it.
    fn tree(&self, mut i: usize, mut prefix: Vec<String>, out: &mut Vec<CrateRef>) -> usize {
        let code = self.code;
        loop {
            i = skip_ws(code, i);
            match code.get(i).copied() {
                Some('{') => {
                    i += 1;
                    loop {
                        i = skip_ws(code, i);
                        match code.get(i) {
                            None => return i,
                            Some('}') => return i + 1,
                            Some(',') => {
                                i += 1;
                                continue;
                            }
                            _ => {}
                        }
                        let before = i;
                        i = self.tree(i, prefix.clone(), out);
                        i = Self::group_separator(code, i); // past `as alias`
                        if i == before {
                            i += 1;
                        }
                    }
                }
                Some('*') => {
                    self.push(out, prefix, i, true);
                    return i + 1;
                }
                Some(c) if is_ident_start(c) => {
                    let (word, end) = read_ident(code, i);
                    if word == "self" {
                        self.push(out, prefix, i, false);
                        return end;
                    }
                    prefix.push(word);
                    let j = skip_ws(code, end);
                    let more = code.get(j..j + 2) == Some(&[':', ':']);
                    if more && code.get(skip_ws(code, j + 2)) != Some(&'<') {
                        i = j + 2;
                        continue;
                    }
                    self.push(out, prefix, i, false);
                    return end;
                }
                _ => {
                    if !prefix.is_empty() {
                        self.push(out, prefix, i, false);
                    }
                    return i;
                }
            }
        }
    }

    /// The next `,` or closing `}` of the enclosing group, from `i`.
    fn group_separator(code: &[char], mut i: usize) -> usize {
        let mut depth = 0usize;
        while i < code.len() {
            match code[i] {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' if depth == 0 => return i,
                '}' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => return i,
                _ => {}
            }
            i += 1;
        }
        i
    }
}

/// One leaf of a `use` item: `use a::{b, c as d, e::*}` has three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseLeaf {
    /// 1-based line of the leaf.
    pub line: usize,
    /// The path as written (`crate`, `self`, `super` kept); for a glob, the path before `*`.
    pub path: Vec<String>,
    /// The name the leaf binds: its alias or last segment; `None` for a glob or `as _`.
    pub name: Option<String>,
    pub glob: bool,
}

/// One `use` item in cleaned code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseItem {
    /// With a visibility (`pub`, `pub(crate)`, `pub(super)`, ...): a re-export.
    pub reexport: bool,
    /// Chars `start..end` of the code, from the visibility (or `use`) to after the `;`.
    pub start: usize,
    pub end: usize,
    pub leaves: Vec<UseLeaf>,
}

/// Every `use` item of code already cleaned of comments, literals (and test code, if wanted).
pub fn use_items(code: &[char]) -> Vec<UseItem> {
    let starts = line_starts(code);
    let line = |i: usize| starts.partition_point(|&s| s <= i);
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if !(is_ident_start(code[i]) && (i == 0 || (!is_ident(code[i - 1]) && code[i - 1] != '\''))) {
            i += 1;
            continue;
        }
        let (word, end) = read_ident(code, i);
        let next = skip_ws(code, end);
        // `use<'a>` (precise capturing) is not an item.
        if word != "use" || code.get(next) == Some(&'<') {
            i = end;
            continue;
        }
        let start = visibility_start(code, i);
        let mut leaves = Vec::new();
        let after = use_tree(code, end, Vec::new(), &mut leaves, &line);
        let stop = (after..code.len()).find(|&k| code[k] == ';').map_or(code.len(), |k| k + 1);
        out.push(UseItem { reexport: start.is_some(), start: start.unwrap_or(i), end: stop, leaves });
        i = stop.max(end);
    }
    out
}

/// Where the visibility before the keyword at `i` starts (`pub`, `pub(crate)`, `pub(in a::b)`),
/// or `None` when there is none.
fn visibility_start(code: &[char], i: usize) -> Option<usize> {
    let mut k = i;
    while k > 0 && code[k - 1].is_whitespace() {
        k -= 1;
    }
    if k > 0 && code[k - 1] == ')' {
        // `pub( ... )`: back to the matching `(`.
        let mut depth = 0usize;
        while k > 0 {
            k -= 1;
            match code[k] {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        while k > 0 && code[k - 1].is_whitespace() {
            k -= 1;
        }
    }
    let word_start = (0..k).rev().take_while(|&j| is_ident(code[j])).last()?;
    (code[word_start..k].iter().collect::<String>() == "pub").then_some(word_start)
}

/// Parses the use-tree at `i` below `prefix` into `leaves`; returns the position after it.
fn use_tree(
    code: &[char],
    mut i: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<UseLeaf>,
    line: &dyn Fn(usize) -> usize,
) -> usize {
    loop {
        i = skip_ws(code, i);
        match code.get(i).copied() {
            Some('{') => {
                i += 1;
                loop {
                    i = skip_ws(code, i);
                    match code.get(i) {
                        None => return i,
                        Some('}') => return i + 1,
                        Some(',') => i += 1,
                        _ => {
                            let before = i;
                            i = use_tree(code, i, prefix.clone(), leaves, line);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            Some('*') => {
                leaves.push(UseLeaf { line: line(i), path: prefix, name: None, glob: true });
                return i + 1;
            }
            Some(':') if code.get(i + 1) == Some(&':') => i += 2,
            Some('$') => i += 1, // `$crate`
            Some(c) if is_ident_start(c) => {
                let (word, end) = read_ident(code, i);
                let j = skip_ws(code, end);
                if code.get(j..j + 2) == Some(&[':', ':']) {
                    prefix.push(word);
                    i = j + 2;
                    continue;
                }
                let mut name = if word == "self" { prefix.last().cloned() } else { Some(word.clone()) };
                if word != "self" {
                    prefix.push(word);
                }
                let mut after = end;
                let k = skip_ws(code, end);
                if code.get(k).copied().is_some_and(is_ident_start) {
                    let (kw, kend) = read_ident(code, k);
                    if kw == "as" {
                        let a = skip_ws(code, kend);
                        let (alias, aend) = read_ident(code, a);
                        name = (alias != "_").then_some(alias);
                        after = aend;
                    }
                }
                leaves.push(UseLeaf { line: line(i), path: prefix, name, glob: false });
                return after;
            }
            _ => return i,
        }
    }
}

/// The names of the items a file defines at any depth outside test code (`fn`, `struct`,
/// `enum`, `union`, `trait`, `type`, `const`, `static`, `mod`, `macro_rules!`): a path naming
/// one of them is charged to the file itself, not followed through a glob re-export.
fn defined_names(code: &[char]) -> HashSet<String> {
    const KEYWORDS: [&str; 9] = ["fn", "struct", "enum", "union", "trait", "type", "const", "static", "mod"];
    let mut out = HashSet::new();
    let mut i = 0;
    while i < code.len() {
        if !(is_ident_start(code[i]) && (i == 0 || (!is_ident(code[i - 1]) && code[i - 1] != '\''))) {
            i += 1;
            continue;
        }
        let (word, end) = read_ident(code, i);
        let mut j = skip_ws(code, end);
        if word == "macro_rules" && code.get(j) == Some(&'!') {
            j = skip_ws(code, j + 1);
        } else if !KEYWORDS.contains(&word.as_str()) {
            i = end;
            continue;
        }
        if code.get(j).copied().is_some_and(is_ident_start) {
            out.insert(read_ident(code, j).0);
        }
        i = end;
    }
    out
}

/// Every identifier of cleaned code.
fn identifiers(code: &[char]) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut i = 0;
    while i < code.len() {
        if is_ident_start(code[i]) && (i == 0 || !is_ident(code[i - 1])) {
            let (word, end) = read_ident(code, i);
            out.insert(word);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The largest number of lines of code a file may have ([`code_lines`]): a file over it holds
/// more than one job and is split along its seams (one stage or job per file).
pub const MAX_CODE_LINES: usize = 1200;

/// Lines of code of a source file: lines with anything but whitespace once comments (doc
/// comments included) and test code (every item behind `#[cfg(test)]`, such as an inline
/// `mod tests { ... }`, and the whole of a file starting with `#![cfg(test)]`) are removed.
/// String literals are code: every line of one counts but an empty one.
pub fn code_lines(src: &str) -> usize {
    let mut code = clean(src, '"');
    blank_test_items(&mut code);
    code.split(|c| *c == '\n').filter(|line| line.iter().any(|c| !c.is_whitespace())).count()
}

/// Files of `sources` with more than `max` lines of code, one message each; `prefix` is
/// prepended to their paths (`rust/strata-core/src/`).
pub fn size_problems(prefix: &str, sources: &[Source], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for s in sources {
        let n = code_lines(&s.text);
        if n > max {
            out.push(format!(
                "{prefix}{}: {n} lines of code, over the limit of {max} (lines that are not blank and not only \
                 comments, outside #[cfg(test)] items) — split it along its seams, one stage or job per file",
                s.rel
            ));
        }
    }
    out
}

/// The module path of a file under `src/`: `gen3d/pipeline.rs` → `gen3d::pipeline`,
/// `mesh/mod.rs` → `mesh`, `lib.rs` / `main.rs` → the root (empty).
pub fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut segs: Vec<String> = stem.split('/').map(String::from).collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    if segs.len() == 1 && (segs[0] == "lib" || segs[0] == "main") {
        segs.clear();
    }
    segs
}

#[derive(Debug)]
struct Module {
    name: Vec<String>,
    /// Display path of the file (`rust/strata-core/src/gen3d/pipeline.rs`).
    file: String,
}

/// A use of module `to` by module `from`.
#[derive(Debug, Clone)]
struct Import {
    from: usize,
    to: usize,
    line: usize,
    text: String,
    /// The modules whose re-exports the path went through, in order (`[mesh]` for
    /// `crate::mesh::Mesher`, defined in `mesh::greedy`); empty for a direct path.
    via: Vec<usize>,
}

/// What one file says about names: the paths it uses and the names it re-exports.
#[derive(Debug, Default)]
struct FileNames {
    /// Paths from the crate root (after `crate::`) the file's own code uses.
    refs: Vec<CrateRef>,
    /// Names the file re-exports, each with the path(s) from the crate root it names.
    reexports: HashMap<String, Vec<Vec<String>>>,
    /// Modules (paths from the crate root) the file re-exports with a glob.
    globs: Vec<Vec<String>>,
    /// Names of the items the file defines ([`defined_names`]).
    defines: HashSet<String>,
}

/// The path from the crate root that `path` (as written in module `module`) names, or `None`
/// for a path into another crate. Relative paths start with `self`, `super` or an item of the
/// file (`defines`: a child module, an enum).
fn from_root(path: &[String], module: &[String], defines: &HashSet<String>) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some(module.iter().chain(&path[1..]).cloned().collect()),
        "super" => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let base = module.get(..module.len().checked_sub(ups)?)?;
            Some(base.iter().chain(&path[ups..]).cloned().collect())
        }
        name if defines.contains(name) => Some(module.iter().chain(path).cloned().collect()),
        _ => None,
    }
}

/// The names a file uses and re-exports (see [`ModuleGraph::parse`] for the rules).
fn file_names(src: &str, module: &[String]) -> FileNames {
    let mut code = blank_comments_and_literals(src);
    blank_test_items(&mut code);
    let defines = defined_names(&code);
    let items = use_items(&code);
    let mut names = FileNames::default();
    // Re-exports are not uses of the file's own: blank them before reading its paths.
    let mut own = code.clone();
    let mut bare = code;
    for item in &items {
        if item.reexport {
            blank(&mut own, item.start, item.end);
        }
        blank(&mut bare, item.start, item.end);
    }
    names.refs = crate_refs_in(&own);
    // Inline relative paths (`super::f()`, `child::Type`), outside `use` items.
    for r in relative_refs_in(&bare, |w| w == "super" || w == "self" || defines.contains(w)) {
        if let Some(path) = from_root(&r.path, module, &defines) {
            names.refs.push(CrateRef { line: r.line, path, text: r.text });
        }
    }
    let used = identifiers(&bare);
    for item in &items {
        for leaf in &item.leaves {
            let Some(path) = from_root(&leaf.path, module, &defines) else { continue };
            let text = format!("{}{}", leaf.path.join("::"), if leaf.glob { "::*" } else { "" });
            let as_ref = CrateRef { line: leaf.line, path: path.clone(), text };
            let relative = leaf.path.first().is_some_and(|s| s != "crate");
            if !item.reexport {
                // `crate::` paths were read above; relative ones are read here.
                if relative {
                    names.refs.push(as_ref);
                }
            } else if leaf.glob {
                // A glob re-export's names are unknown: the file may use any of them.
                names.globs.push(path);
                names.refs.push(as_ref);
            } else if let Some(name) = &leaf.name {
                // A re-exported name the file's own code also uses is a use of the file's own.
                if used.contains(name) {
                    names.refs.push(as_ref);
                }
                names.reexports.entry(name.clone()).or_default().push(path);
            }
        }
    }
    names.defines = defines;
    names
}

/// A crate's file modules and the `crate::` imports between them.
#[derive(Debug)]
pub struct ModuleGraph {
    modules: Vec<Module>,
    imports: Vec<Import>,
}

/// Paths from the crate root resolved to the files that define what they name.
struct Resolver<'a> {
    index: HashMap<String, usize>,
    names: &'a [FileNames],
}

impl Resolver<'_> {
    /// The files (with the first re-exporting module passed through) that define what `path`
    /// names: the longest prefix that is a file module; then, for a name that module
    /// re-exports, the file(s) the re-export names, followed through further re-exports; for
    /// a name it neither defines nor re-exports by name, every module it glob-re-exports; else
    /// the module itself.
    fn resolve(&self, path: &[String], via: &[usize], depth: usize, out: &mut Vec<(usize, Vec<usize>)>) {
        let Some((len, m)) =
            (0..=path.len()).rev().find_map(|len| self.index.get(&path[..len].join("::")).map(|&m| (len, m)))
        else {
            return;
        };
        let rest = &path[len..];
        if let (Some(name), true) = (rest.first(), depth < 16) {
            let names = &self.names[m];
            if let Some(targets) = names.reexports.get(name) {
                let via: Vec<usize> = via.iter().copied().chain([m]).collect();
                for t in targets {
                    let next: Vec<String> = t.iter().chain(&rest[1..]).cloned().collect();
                    self.resolve(&next, &via, depth + 1, out);
                }
                return;
            }
            if !names.defines.contains(name) && !names.globs.is_empty() {
                let via: Vec<usize> = via.iter().copied().chain([m]).collect();
                for g in &names.globs {
                    let next: Vec<String> = g.iter().chain(rest).cloned().collect();
                    self.resolve(&next, &via, depth + 1, out);
                }
                return;
            }
        }
        out.push((m, via.to_vec()));
    }
}

impl ModuleGraph {
    /// Builds the graph of `sources` (files under `src/`); `prefix` is prepended to their
    /// paths in messages (`rust/strata-core/src/`).
    ///
    /// A file uses what its `crate::` paths name (in `use` items or inline) and what its
    /// private `use` items name relative to it (`self::`, `super::`, a child module). A
    /// re-export (a `use` item with any `pub` visibility) is not a use of the re-exporting
    /// file, unless its own code also names the re-exported name (or the re-export is a glob);
    /// a path through a re-export is charged to the file that defines the name. So
    /// `use crate::mesh::Mesher` in a mesh file, with `pub use greedy::Mesher` in
    /// `mesh/mod.rs`, is a use of `mesh/greedy.rs`: a cycle through a folder's `mod.rs`
    /// re-export is a cycle between the files that define the names. Paths that resolve to
    /// the crate root (`crate::step`) are not edges.
    pub fn parse(prefix: &str, sources: &[Source]) -> ModuleGraph {
        let mut sources: Vec<&Source> = sources.iter().collect();
        sources.sort_by(|a, b| a.rel.cmp(&b.rel));
        let modules: Vec<Module> =
            sources.iter().map(|s| Module { name: module_of(&s.rel), file: format!("{prefix}{}", s.rel) }).collect();
        let names: Vec<FileNames> = sources.iter().zip(&modules).map(|(s, m)| file_names(&s.text, &m.name)).collect();
        let index = modules.iter().enumerate().map(|(k, m)| (m.name.join("::"), k)).collect();
        let resolver = Resolver { index, names: &names };
        let mut imports = Vec::new();
        for (from, file) in names.iter().enumerate() {
            for r in &file.refs {
                let mut targets = Vec::new();
                resolver.resolve(&r.path, &[], 0, &mut targets);
                targets.sort();
                targets.dedup_by_key(|t| t.0);
                for (to, via) in targets {
                    if to != from && !modules[to].name.is_empty() {
                        imports.push(Import { from, to, line: r.line, text: r.text.clone(), via });
                    }
                }
            }
        }
        ModuleGraph { modules, imports }
    }

    /// Number of module-to-module imports found.
    pub fn import_count(&self) -> usize {
        self.imports.len()
    }

    fn name(&self, m: usize) -> String {
        self.modules[m].name.join("::")
    }

    fn at(&self, imp: &Import) -> String {
        let via = match imp.via.first() {
            Some(&v) => format!(" (defined in {}, re-exported by {})", self.name(imp.to), self.modules[v].file),
            None => String::new(),
        };
        format!("{}:{}: `{}`{via}", self.modules[imp.from].file, imp.line, imp.text)
    }

    /// Layer-order violations: a module in a layer not listed in `layers`, an import of a later
    /// group, or an import of a peer in the same group. One message per offending import.
    pub fn layer_problems(&self, layers: &[&[&str]]) -> Vec<String> {
        let rank = |layer: &str| layers.iter().position(|group| group.contains(&layer));
        let order = layers
            .iter()
            .map(|g| if g.len() == 1 { g[0].to_string() } else { format!("{{{}}}", g.join(", ")) })
            .collect::<Vec<_>>()
            .join(" → ");
        // (module, line, message), sorted so the messages follow the files.
        let mut problems: Vec<(usize, usize, String)> = Vec::new();
        for (k, m) in self.modules.iter().enumerate() {
            if let Some(layer) = m.name.first().filter(|l| rank(l).is_none()) {
                problems.push((k, 0, format!(
                    "{}: module `{}` is in no layer (`{layer}` is not one of {order}); move it into a layer folder, \
                     or add the folder to the crate's layer table in rust/xtask/src/layers.rs",
                    m.file,
                    m.name.join("::")
                )));
            }
        }
        for imp in &self.imports {
            let (Some(from), Some(to)) = (self.modules[imp.from].name.first(), self.modules[imp.to].name.first())
            else {
                continue;
            };
            let (Some(a), Some(b)) = (rank(from), rank(to)) else { continue };
            if from == to || b < a {
                continue;
            }
            let why = if b > a {
                format!("layer `{from}` imports `{to}`, which comes after it (order: {order})")
            } else {
                format!("`{from}` and `{to}` are peer layers and may not import each other (order: {order})")
            };
            problems.push((imp.from, imp.line, format!("{} — {why}", self.at(imp))));
        }
        problems.sort_by_key(|p| (p.0, p.1));
        problems.into_iter().map(|p| p.2).collect()
    }

    /// Import cycles between modules: for each strongly connected group of modules, the
    /// shortest cycle through each of its members (each cycle once), every step with the
    /// file, line and path that makes it.
    pub fn cycle_problems(&self) -> Vec<String> {
        let n = self.modules.len();
        // First import per edge (the one shown) and how many imports make the edge.
        let mut edges: BTreeMap<(usize, usize), (&Import, usize)> = BTreeMap::new();
        for imp in &self.imports {
            edges.entry((imp.from, imp.to)).and_modify(|e| e.1 += 1).or_insert((imp, 1));
        }
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges.keys() {
            adj[a].push(b);
        }
        let mut problems = Vec::new();
        let mut seen: Vec<Vec<usize>> = Vec::new();
        for scc in strongly_connected(&adj).into_iter().filter(|c| c.len() > 1) {
            let mut in_scc = vec![false; n];
            for &m in &scc {
                in_scc[m] = true;
            }
            for &start in &scc {
                let Some(mut cycle) = shortest_cycle(&adj, &in_scc, start) else { continue };
                // Rotate to the smallest member so each cycle is reported once.
                let min = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
                cycle.rotate_left(min);
                if seen.contains(&cycle) {
                    continue;
                }
                let mut names: Vec<String> = cycle.iter().map(|&m| self.name(m)).collect();
                names.push(self.name(cycle[0]));
                let mut msg = format!("import cycle: {}", names.join(" → "));
                for k in 0..cycle.len() {
                    let (imp, count) = edges[&(cycle[k], cycle[(k + 1) % cycle.len()])];
                    msg.push_str(&format!("\n      {}", self.at(imp)));
                    if count > 1 {
                        msg.push_str(&format!(" (+{} more from that file)", count - 1));
                    }
                }
                problems.push(msg);
                seen.push(cycle);
            }
        }
        problems
    }
}

impl ModuleGraph {
    /// Imports through a re-export in the `mod.rs` of the importing file's own folder, or of a
    /// folder above it (the crate root's re-exports included), one message each. That `mod.rs`
    /// declares the importing file and re-exports into it: a file-level cycle. Inside the
    /// crate a name is imported from the file that defines it (`crate::mesh::greedy::Mesher`,
    /// not `crate::mesh::Mesher`); the re-exports are for other crates.
    pub fn own_folder_reexport_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for imp in &self.imports {
            let from = &self.modules[imp.from].name;
            let Some(&v) = imp.via.iter().find(|&&v| {
                let folder = &self.modules[v].name;
                folder.len() < from.len() && from.starts_with(folder)
            }) else {
                continue;
            };
            let folder = if self.modules[v].name.is_empty() { "the crate root".to_string() } else { self.name(v) };
            problems.push(format!(
                "{}:{}: `{}` goes through the re-export in {}, which declares this file ({folder} → {} → {folder}, a file-level cycle) — import it from the file that defines it, {} (`crate::{}::…`)",
                self.modules[imp.from].file,
                imp.line,
                imp.text,
                self.modules[v].file,
                self.name(imp.from),
                self.name(imp.to),
                self.name(imp.to),
            ));
        }
        problems
    }
}

/// Tarjan's strongly connected components of a directed graph.
fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.adj[v].len() {
            let w = s.adj[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort_unstable();
            s.out.push(comp);
        }
    }
    let n = adj.len();
    let mut s = State {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The shortest cycle through `start` using only nodes marked in `allowed` (breadth first).
fn shortest_cycle(adj: &[Vec<usize>], allowed: &[bool], start: usize) -> Option<Vec<usize>> {
    let mut parent: Vec<Option<usize>> = vec![None; adj.len()];
    let mut queue = VecDeque::from([start]);
    while let Some(u) = queue.pop_front() {
        for &w in &adj[u] {
            if w == start {
                let mut path = vec![u];
                let mut v = u;
                while v != start {
                    v = parent[v]?;
                    path.push(v);
                }
                path.reverse();
                return Some(path);
            }
            if allowed[w] && parent[w].is_none() {
                parent[w] = Some(u);
                queue.push_back(w);
            }
        }
    }
    None
}

/// Entries of a Cargo manifest that would bring in Godot: any dependency (normal, dev, build,
/// target-specific, or a `[dependencies.NAME]` table) whose name or spec mentions `godot`
/// or `gdext`. `file` is used in the messages.
pub fn godot_dependency_problems(file: &str, manifest: &str) -> Vec<String> {
    const KINDS: [&str; 5] =
        ["dependencies", "dev-dependencies", "build-dependencies", "dev_dependencies", "build_dependencies"];
    let godotish = |s: &str| {
        let s = s.to_ascii_lowercase();
        s.contains("godot") || s.contains("gdext")
    };
    // `[dependencies.godot]`, `[target.'cfg(unix)'.dependencies.godot]`: a table per dependency.
    let dependency_table = |table: &str| {
        KINDS.iter().any(|kind| table.starts_with(&format!("{kind}.")) || table.contains(&format!(".{kind}.")))
    };
    let mut problems = Vec::new();
    let mut table = String::new();
    for (k, raw) in manifest.lines().enumerate() {
        let line = strip_toml_comment(raw).trim();
        let flag = |problems: &mut Vec<String>| {
            problems.push(format!(
                "{file}:{}: `{line}` — strata-core must not depend on Godot (the core never imports Godot; \
                 engine code belongs in rust/strata-godot)",
                k + 1
            ))
        };
        if line.starts_with('[') {
            table = line.trim_matches(|c| c == '[' || c == ']').trim().to_string();
            if dependency_table(&table) && godotish(&table) {
                flag(&mut problems);
            }
            continue;
        }
        let in_deps = KINDS.iter().any(|kind| table == *kind || table.ends_with(&format!(".{kind}")));
        if line.contains('=') && (in_deps || dependency_table(&table)) && godotish(line) {
            flag(&mut problems);
        }
    }
    problems
}

/// A TOML line without its `#` comment (a `#` inside a quoted string is kept).
fn strip_toml_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (k, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') => return &line[..k],
            _ => {}
        }
    }
    line
}

/// Every `.rs` file under `dir`, with paths relative to it, sorted.
pub fn read_sources(dir: &Path) -> Result<Vec<Source>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Source>) -> Result<()> {
        let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).with_context(|| format!("could not read {}", path.display()))?;
                let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                out.push(Source { rel, text });
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// What [`check_repo`] found.
#[derive(Debug, Default)]
pub struct Report {
    /// Source files read.
    pub files: usize,
    /// Module-to-module imports found.
    pub imports: usize,
    /// Everything wrong, one message each (empty: the check passes).
    pub problems: Vec<String>,
}

/// The checks one crate gets. Every crate listed in [`CRATES`] gets the import-cycle check;
/// the rest is per crate.
#[derive(Debug, Clone, Copy)]
pub struct CrateRules {
    /// Name in messages (`strata-core`).
    pub name: &'static str,
    /// Its source folder, from the repository root (`rust/strata-core/src`).
    pub src: &'static str,
    /// Its folders as dependency layers ([`ModuleGraph::layer_problems`]), if it has them.
    pub layers: Option<&'static [&'static [&'static str]]>,
    /// Its Cargo manifest, from the repository root, when it must not depend on Godot.
    pub godot_free_manifest: Option<&'static str>,
    /// The most lines of code one of its files may have ([`code_lines`]), if limited.
    pub max_code_lines: Option<usize>,
}

/// The crates [`check_repo`] checks and how: each with one entry.
pub const CRATES: &[CrateRules] = &[
    CrateRules {
        name: "strata-core",
        src: "rust/strata-core/src",
        layers: Some(CORE_LAYERS),
        godot_free_manifest: Some("rust/strata-core/Cargo.toml"),
        max_code_lines: Some(MAX_CODE_LINES),
    },
    CrateRules {
        name: "strata-godot",
        src: "rust/strata-godot/src",
        layers: Some(GODOT_LAYERS),
        godot_free_manifest: None,
        max_code_lines: Some(MAX_CODE_LINES),
    },
    CrateRules {
        name: "xtask",
        src: "rust/xtask/src",
        layers: None,
        godot_free_manifest: None,
        max_code_lines: Some(MAX_CODE_LINES),
    },
];

/// Every problem of one crate's `sources` under `rules`, except its manifest's.
pub fn crate_problems(rules: &CrateRules, sources: &[Source]) -> (ModuleGraph, Vec<String>) {
    let prefix = format!("{}/", rules.src);
    let graph = ModuleGraph::parse(&prefix, sources);
    let mut problems = Vec::new();
    if let Some(layers) = rules.layers {
        problems.extend(graph.layer_problems(layers));
    }
    problems.extend(graph.cycle_problems().into_iter().map(|p| format!("{}: {p}", rules.name)));
    problems.extend(graph.own_folder_reexport_problems().into_iter().map(|p| format!("{}: {p}", rules.name)));
    if let Some(max) = rules.max_code_lines {
        problems.extend(size_problems(&prefix, sources, max));
    }
    (graph, problems)
}

/// Runs every check of this module on the repository at `root`: each crate of [`CRATES`].
pub fn check_repo(root: &Path) -> Result<Report> {
    let mut report = Report::default();
    for rules in CRATES {
        let sources = read_sources(&root.join(rules.src))?;
        let (graph, problems) = crate_problems(rules, &sources);
        report.problems.extend(problems);
        if let Some(file) = rules.godot_free_manifest {
            let manifest = root.join(file);
            let text =
                fs::read_to_string(&manifest).with_context(|| format!("could not read {}", manifest.display()))?;
            report.problems.extend(godot_dependency_problems(file, &text));
        }
        report.files += sources.len();
        report.imports += graph.import_count();
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(usize, String)> {
        crate_refs(src).into_iter().map(|r| (r.line, r.text)).collect()
    }

    fn pairs(v: &[(usize, &str)]) -> Vec<(usize, String)> {
        v.iter().map(|(l, t)| (*l, t.to_string())).collect()
    }

    #[test]
    fn parses_use_statements_and_inline_paths() {
        let src = "use crate::base::block::{self, BlockId};\n\
                   use crate::{noise::value, base::{rng::*, coords::IVec3 as V}};\n\
                   use crate::{\n    mesh::bytes,\n    preset::model::{Biome,},\n};\n\
                   fn f() -> u64 { crate::base::rng::mix64(1) + crate :: base::simd::avx2() as u64 }\n\
                   fn g() { let _ = crate::gen2d::TileGrid { w: 1 }; crate::x::Y::<u8>::new(); }\n\
                   macro_rules! m { () => { $crate::error::Error::msg(\"\") } }\n\
                   pub(crate) fn h() {}\n";
        assert_eq!(
            texts(src),
            pairs(&[
                (1, "crate::base::block"),
                (1, "crate::base::block::BlockId"),
                (2, "crate::noise::value"),
                (2, "crate::base::rng::*"),
                (2, "crate::base::coords::IVec3"),
                (4, "crate::mesh::bytes"),
                (5, "crate::preset::model::Biome"),
                (7, "crate::base::rng::mix64"),
                (7, "crate::base::simd::avx2"),
                (8, "crate::gen2d::TileGrid"),
                (8, "crate::x::Y"),
                (9, "crate::error::Error::msg"),
            ])
        );
    }

    #[test]
    fn skips_comments_literals_and_test_code() {
        let src = "//! Uses [`crate::mesh::Mesh`].\n\
                   /* crate::stream /* nested crate::persist */ crate::mesh */\n\
                   const A: &str = \"crate::mesh \\\" crate::stream\";\n\
                   const B: &str = r#\"crate::mesh \" crate::persist\"#;\n\
                   const C: char = '\"'; const D: u8 = b'\\''; fn e<'a>(x: &'a str) -> &'a str { x }\n\
                   use crate::base::rng; // crate::persist\n\
                   #[cfg(test)]\n#[allow(dead_code)]\nfn helper() { crate::persist::save(); }\n\
                   #[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::stream::Streamer;\n    fn f() { if x { } }\n}\n\
                   #[cfg(test)] use crate::persist::Profile;\n\
                   use crate::noise::value;\n";
        assert_eq!(texts(src), pairs(&[(6, "crate::base::rng"), (17, "crate::noise::value")]));
        assert!(texts("#![cfg(test)]\nuse crate::persist::x;\n").is_empty());
        // Not a test gate: cfg(not(test)) and cfg_attr are read.
        assert_eq!(texts("#[cfg(not(test))]\nuse crate::a::b;\n"), pairs(&[(2, "crate::a::b")]));
    }

    #[test]
    fn module_paths() {
        assert_eq!(module_of("gen3d/pipeline.rs"), ["gen3d", "pipeline"]);
        assert_eq!(module_of("mesh/mod.rs"), ["mesh"]);
        assert!(module_of("lib.rs").is_empty());
        assert!(module_of("main.rs").is_empty());
        assert_eq!(module_of("xvfb.rs"), ["xvfb"]);
    }

    fn core(files: &[(&str, &str)]) -> ModuleGraph {
        let sources: Vec<Source> = files.iter().map(|(p, t)| Source::new(p, t)).collect();
        ModuleGraph::parse("src/", &sources)
    }

    const CLEAN: &[(&str, &str)] = &[
        ("lib.rs", "pub mod base;\npub mod noise;\npub use base::block::BlockId;\n"),
        ("base/mod.rs", "pub mod block;\npub mod simd;\n"),
        ("base/block.rs", "use crate::base::simd;\npub type BlockId = u16;\n"),
        ("base/simd.rs", "pub mod avx2 { pub fn f() {} }\n"),
        ("noise/mod.rs", "pub mod value;\n"),
        ("noise/value.rs", "use crate::base::{block::BlockId, simd::avx2};\nuse crate::BlockId as B;\n"),
        ("gen3d/mod.rs", "pub mod pipeline;\npub mod caves;\n"),
        ("gen3d/pipeline.rs", "use crate::noise::value;\nfn f() { crate::base::simd::avx2::f() }\n"),
        ("gen3d/caves.rs", "use crate::gen3d::pipeline;\n"),
        ("gen2d/mod.rs", "use crate::noise::value;\n#[cfg(test)]\nmod tests { use crate::gen3d::pipeline; }\n"),
        ("mesh/mod.rs", "use crate::gen3d::pipeline::Generator;\nuse crate::gen2d::Tile;\n"),
    ];

    #[test]
    fn clean_layers_pass() {
        let g = core(CLEAN);
        assert!(g.layer_problems(CORE_LAYERS).is_empty(), "{:?}", g.layer_problems(CORE_LAYERS));
        assert!(g.cycle_problems().is_empty(), "{:?}", g.cycle_problems());
        // Paths resolve to the longest module: `avx2` is inline, so base::simd is the target.
        assert!(g.imports.iter().any(|i| g.name(i.from) == "noise::value" && g.name(i.to) == "base::simd"));
        // The root is never an edge's target: its re-exports resolve to the files defining the names.
        assert!(g.imports.iter().all(|i| !g.modules[i.to].name.is_empty()));
        assert!(
            g.imports.iter().any(|i| g.name(i.from) == "noise::value" && g.name(i.to) == "base::block" && i.line == 2)
        );
    }

    #[test]
    fn later_and_peer_layers_fail() {
        let mut files = CLEAN.to_vec();
        files
            .push(("noise/worley.rs", "// fine: crate::mesh\nuse crate::{base::block, gen3d::pipeline::Generator};\n"));
        files.push(("gen2d/surface.rs", "fn f() { crate::gen3d::caves::carve() }\n"));
        files.push(("physics/mod.rs", "use crate::base::block;\n"));
        let p = core(&files).layer_problems(CORE_LAYERS);
        assert_eq!(p.len(), 3, "{p:#?}");
        assert!(p[0].contains("src/gen2d/surface.rs:1: `crate::gen3d::caves::carve`"), "{}", p[0]);
        assert!(p[0].contains("peer layers"), "{}", p[0]);
        assert!(p[1].contains("src/noise/worley.rs:2: `crate::gen3d::pipeline::Generator`"), "{}", p[1]);
        assert!(p[1].contains("layer `noise` imports `gen3d`, which comes after it"), "{}", p[1]);
        assert!(p[2].contains("src/physics/mod.rs: module `physics` is in no layer"), "{}", p[2]);
    }

    #[test]
    fn cycles_fail_with_the_cycle_printed() {
        let mut files = CLEAN.to_vec();
        // pipeline → caves → pipeline, and ores → water → pipeline → ores.
        files.retain(|(p, _)| *p != "gen3d/pipeline.rs");
        files.push(("gen3d/pipeline.rs", "use crate::gen3d::caves::Caves;\nuse crate::gen3d::{caves::x, ores};\n"));
        files.push(("gen3d/ores.rs", "use crate::gen3d::water;\n"));
        files.push(("gen3d/water.rs", "\n\nfn f() { crate::gen3d::pipeline::g() }\n"));
        let g = core(&files);
        assert!(g.layer_problems(CORE_LAYERS).is_empty());
        let p = g.cycle_problems();
        assert_eq!(p.len(), 2, "{p:#?}");
        assert!(p[0].starts_with("import cycle: gen3d::caves → gen3d::pipeline → gen3d::caves"), "{}", p[0]);
        assert!(
            p[0].contains("src/gen3d/pipeline.rs:1: `crate::gen3d::caves::Caves` (+1 more from that file)"),
            "{}",
            p[0]
        );
        assert!(p[0].contains("src/gen3d/caves.rs:1: `crate::gen3d::pipeline`"), "{}", p[0]);
        assert!(
            p[1].starts_with("import cycle: gen3d::ores → gen3d::water → gen3d::pipeline → gen3d::ores"),
            "{}",
            p[1]
        );
        assert!(p[1].contains("src/gen3d/water.rs:3: `crate::gen3d::pipeline::g`"), "{}", p[1]);
    }

    #[test]
    fn xtask_style_cycle() {
        let files = [
            ("main.rs", "mod a;\nmod b;\nfn main() { a::f() }\npub fn step() {}\n"),
            ("a.rs", "use crate::b::tail;\npub fn f() { crate::step() }\n"),
            ("b.rs", "pub fn tail() { crate::a::f() }\n"),
        ];
        let p = core(&files).cycle_problems();
        assert_eq!(p.len(), 1);
        assert!(p[0].starts_with("import cycle: a → b → a"), "{}", p[0]);
        let fixed = [files[0], ("a.rs", "use crate::b::tail;\n"), ("b.rs", "pub fn tail() { crate::step() }\n")];
        assert!(core(&fixed).cycle_problems().is_empty());
    }

    #[test]
    fn use_items_with_visibility_aliases_globs_and_self() {
        let src = "use a::b;\npub(crate) use self::c::{d as e, f::*, g::{self}, h as _};\npub use super::super::i;\n\
                   pub(in crate::x) use crate::j::K;\nfn f() -> impl Sized + use<> {}\n";
        let items = use_items(&blank_comments_and_literals(src));
        let leaves = |k: usize| -> Vec<(usize, String, Option<String>, bool)> {
            items[k].leaves.iter().map(|l| (l.line, l.path.join("::"), l.name.clone(), l.glob)).collect()
        };
        assert_eq!(items.len(), 4, "{items:#?}");
        assert_eq!(items.iter().map(|i| i.reexport).collect::<Vec<_>>(), [false, true, true, true]);
        assert_eq!(leaves(0), [(1, "a::b".into(), Some("b".into()), false)]);
        assert_eq!(
            leaves(1),
            [
                (2, "self::c::d".into(), Some("e".into()), false),
                (2, "self::c::f".into(), None, true),
                (2, "self::c::g".into(), Some("g".into()), false),
                (2, "self::c::h".into(), None, false),
            ]
        );
        assert_eq!(leaves(2), [(3, "super::super::i".into(), Some("i".into()), false)]);
        assert_eq!(leaves(3), [(4, "crate::j::K".into(), Some("K".into()), false)]);
        // The item runs from its visibility to its `;`.
        let code: String = blank_comments_and_literals(src)[items[3].start..items[3].end].iter().collect();
        assert_eq!(code, "pub(in crate::x) use crate::j::K;");
    }

    /// A mesh folder whose `mod.rs` re-exports its files' names.
    const MESH: &[(&str, &str)] = &[
        ("lib.rs", "pub mod mesh;\npub mod base;\npub use mesh::ChunkMesh;\n"),
        ("base/mod.rs", "pub mod block;\n"),
        ("base/block.rs", "pub type BlockId = u16;\n"),
        (
            "mesh/mod.rs",
            "mod greedy;\nmod types;\nmod culled;\npub use greedy::Mesher;\npub use self::types::{ChunkMesh, MeshSurface as Surface};\n\
             pub use culled::*;\n",
        ),
        ("mesh/types.rs", "use crate::base::block::BlockId;\npub struct ChunkMesh;\npub struct MeshSurface;\n"),
        ("mesh/greedy.rs", "use crate::mesh::{ChunkMesh, Surface};\npub struct Mesher;\n"),
        ("mesh/culled.rs", "use crate::mesh::types::ChunkMesh;\npub fn mesh_culled() {}\n"),
    ];

    fn edges(g: &ModuleGraph) -> Vec<(String, String, usize, Option<String>)> {
        let mut e: Vec<_> = g
            .imports
            .iter()
            .map(|i| (g.name(i.from), g.name(i.to), i.line, i.via.first().map(|&v| g.name(v))))
            .collect();
        e.sort();
        e.dedup();
        e
    }

    #[test]
    fn reexported_names_are_charged_to_the_files_that_define_them() {
        let g = core(MESH);
        assert_eq!(
            edges(&g),
            [
                // A glob re-export's names are unknown: it is a use.
                ("mesh".into(), "mesh::culled".into(), 6, None),
                ("mesh::culled".into(), "mesh::types".into(), 1, None),
                ("mesh::greedy".into(), "mesh::types".into(), 1, Some("mesh".into())),
                ("mesh::types".into(), "base::block".into(), 1, None),
            ],
            "mod.rs's re-exports by name are no edges of its own; greedy's import through it is one of types"
        );
        assert!(g.cycle_problems().is_empty(), "{:?}", g.cycle_problems());
        // Through the root's re-export and a glob re-export; a name a file defines stays its own.
        let mut files = MESH.to_vec();
        files.push(("base/x.rs", "fn f() { crate::ChunkMesh::new(); crate::mesh::mesh_culled(); }\n"));
        let g = core(&files);
        let from_x: Vec<_> = edges(&g).into_iter().filter(|e| e.0 == "base::x").collect();
        assert_eq!(
            from_x,
            [
                ("base::x".into(), "mesh::culled".into(), 1, Some("mesh".into())),
                ("base::x".into(), "mesh::types".into(), 1, Some("".into())),
            ]
        );
        let p = g.layer_problems(CORE_LAYERS);
        assert_eq!(p.len(), 2, "{p:#?}");
        assert!(
            p[0].contains(
                "src/base/x.rs:1: `crate::ChunkMesh::new` (defined in mesh::types, re-exported by src/lib.rs)"
            )
        );
        assert!(p[0].contains("layer `base` imports `mesh`"), "{}", p[0]);
    }

    #[test]
    fn a_cycle_through_a_mod_rs_reexport_fails() {
        // types imports the mesher through mod.rs; the mesher imports types through mod.rs.
        let mut files = MESH.to_vec();
        files.retain(|(p, _)| *p != "mesh/types.rs");
        files.push(("mesh/types.rs", "\nfn f() -> crate::mesh::Mesher { todo!() }\npub struct ChunkMesh;\n"));
        let p = core(&files).cycle_problems();
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].starts_with("import cycle: mesh::greedy → mesh::types → mesh::greedy"), "{}", p[0]);
        assert!(
            p[0].contains("src/mesh/greedy.rs:1: `crate::mesh::ChunkMesh` (defined in mesh::types, re-exported by src/mesh/mod.rs) (+1 more from that file)"),
            "{}",
            p[0]
        );
        assert!(
            p[0].contains(
                "src/mesh/types.rs:2: `crate::mesh::Mesher` (defined in mesh::greedy, re-exported by src/mesh/mod.rs)"
            ),
            "{}",
            p[0]
        );
        // Importing from the file that defines the name makes the same cycle.
        let mut direct = files.clone();
        direct.retain(|(p, _)| *p != "mesh/types.rs");
        direct.push(("mesh/types.rs", "use crate::mesh::greedy::Mesher;\npub struct ChunkMesh;\n"));
        assert_eq!(core(&direct).cycle_problems().len(), 1);
    }

    #[test]
    fn imports_through_the_own_folders_reexports_fail() {
        let g = core(MESH);
        let p = g.own_folder_reexport_problems();
        assert_eq!(p.len(), 2, "{p:#?}");
        assert!(
            p[0].starts_with(
                "src/mesh/greedy.rs:1: `crate::mesh::ChunkMesh` goes through the re-export in src/mesh/mod.rs, \
                 which declares this file (mesh → mesh::greedy → mesh, a file-level cycle) — import it from the \
                 file that defines it, mesh::types"
            ),
            "{}",
            p[0]
        );
        assert!(p[1].starts_with("src/mesh/greedy.rs:1: `crate::mesh::Surface` goes through"), "{}", p[1]);
        // Another folder's re-exports are its public face: fine. The crate root's are not.
        let mut files = MESH.to_vec();
        files.push(("base/x.rs", "use crate::mesh::Mesher;\nfn f() { crate::ChunkMesh::new(); }\n"));
        let p = core(&files).own_folder_reexport_problems();
        assert_eq!(p.len(), 3, "{p:#?}");
        assert!(p[0].contains("src/base/x.rs:2: `crate::ChunkMesh::new` goes through the re-export in src/lib.rs"));
        assert!(p[0].contains("(the crate root → base::x → the crate root, a file-level cycle)"), "{}", p[0]);
        // Importing from the defining file, or a name the folder's mod.rs defines itself, is fine.
        let fixed = [
            ("mesh/greedy.rs", "use crate::mesh::types::{ChunkMesh, MeshSurface};\nuse crate::mesh::Own;\n"),
            ("mesh/mod.rs", "mod greedy;\nmod types;\npub use types::ChunkMesh;\npub struct Own;\n"),
            ("mesh/types.rs", "pub struct ChunkMesh;\npub struct MeshSurface;\n"),
        ];
        assert_eq!(core(&fixed).own_folder_reexport_problems(), Vec::<String>::new());
    }

    #[test]
    fn a_reexport_is_a_use_only_when_the_file_uses_the_name_or_globs() {
        // model re-exports the field table, which uses model: no cycle while model's own code
        // does not use the table; a cycle once it does.
        let fields = ("preset/fields.rs", "use crate::preset::model::WorldPreset;\npub static FIELDS: [u8; 0] = [];\n");
        let model = |body: &str| format!("pub use crate::preset::fields::FIELDS;\npub struct WorldPreset;\n{body}");
        let quiet = model("fn g() {}\n");
        let files =
            [("preset/mod.rs", "pub mod fields;\npub mod model;\n"), fields, ("preset/model.rs", quiet.as_str())];
        assert!(core(&files).cycle_problems().is_empty(), "{:?}", core(&files).cycle_problems());
        let uses = model("fn g() -> usize { FIELDS.len() }\n");
        let files =
            [("preset/mod.rs", "pub mod fields;\npub mod model;\n"), fields, ("preset/model.rs", uses.as_str())];
        let p = core(&files).cycle_problems();
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].starts_with("import cycle: preset::fields → preset::model → preset::fields"), "{}", p[0]);
        // A glob re-export may bring any name: it is a use.
        let glob = "pub use crate::preset::fields::*;\npub struct WorldPreset;\n";
        let files = [("preset/mod.rs", "pub mod fields;\npub mod model;\n"), fields, ("preset/model.rs", glob)];
        assert_eq!(core(&files).cycle_problems().len(), 1);
        // A private relative `use` is a use: the child's `super::` import of its parent.
        let files = [
            ("noise/mod.rs", "pub mod fbm;\n"),
            ("noise/fbm.rs", "mod avx2;\nuse avx2::kernel;\npub const SCALE: f64 = 1.0;\n"),
            ("noise/fbm/avx2.rs", "use super::SCALE;\npub fn kernel() {}\n"),
        ];
        let p = core(&files).cycle_problems();
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].contains("src/noise/fbm.rs:2: `avx2::kernel`"), "{}", p[0]);
        assert!(p[0].contains("src/noise/fbm/avx2.rs:1: `super::SCALE`"), "{}", p[0]);
        // Inline relative paths are uses too: a parent naming its child's type in a field, the
        // child naming the parent with `super::` in code.
        let files = [
            (
                "node.rs",
                "mod debug;
pub struct Node {
    view: debug::View,
}
",
            ),
            (
                "node/debug.rs",
                "pub struct View;
fn f() { super::helper(); }
",
            ),
        ];
        let p = core(&files).cycle_problems();
        assert_eq!(p.len(), 1, "{p:#?}");
        assert!(p[0].contains("src/node.rs:3: `debug::View`"), "{}", p[0]);
        assert!(p[0].contains("src/node/debug.rs:2: `super::helper`"), "{}", p[0]);
        // A method call on the parent's type is not an import; `field: Type` is no path; a
        // segment after `::` (`godot::debug::x`) starts no relative path.
        let files = [
            (
                "node.rs",
                "mod debug;
pub struct Node {
    view: Vec<u8>,
}
fn g() { godot::debug::x(); }
",
            ),
            (
                "node/debug.rs",
                "use super::Node;
impl Node { fn draw(&self) {} }
",
            ),
        ];
        assert_eq!(core(&files).cycle_problems(), Vec::<String>::new());
    }

    #[test]
    fn godot_layers_keep_resources_below_nodes() {
        let godot = CRATES.iter().find(|c| c.name == "strata-godot").unwrap();
        let files = [
            Source::new(
                "lib.rs",
                "mod base;
mod resources;
mod nodes;
",
            ),
            Source::new(
                "base/ranges.rs",
                "pub fn clamp() {}
",
            ),
            Source::new(
                "resources/preset.rs",
                "use crate::base::ranges::clamp;
fn f(w: crate::nodes::world::World) {}
",
            ),
            Source::new(
                "nodes/world.rs",
                "use crate::resources::preset;
pub struct World;
",
            ),
        ];
        let (_, p) = crate_problems(godot, &files);
        assert_eq!(p.len(), 2, "{p:#?}");
        assert!(p.iter().any(|m| m.contains("layer `resources` imports `nodes`")), "{p:#?}");
        assert!(p.iter().any(|m| m.contains("import cycle: nodes::world → resources::preset")), "{p:#?}");
    }

    #[test]
    fn lines_of_code_leave_out_blanks_comments_and_test_code() {
        let src = "//! Doc.\n\n/// Item doc.\nfn f() {\n    // note\n    let s = \"a\n\n b\"; /* c */\n    /* one\n       two */\n}\n\
                   #[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        // `fn f() {`, `let s = "a`, ` b";` (the string's empty line has nothing to count), `}`.
        assert_eq!(code_lines(src), 4);
        assert_eq!(code_lines("#![cfg(test)]\nfn f() {}\n"), 0);
        assert_eq!(code_lines(""), 0);
    }

    #[test]
    fn files_over_the_limit_fail() {
        let body = |n: usize| (0..n).map(|k| format!("const C{k}: u8 = 0;\n")).collect::<String>();
        let tests = "#[cfg(test)]\nmod tests {\n".to_string() + &body(50) + "}\n";
        let at_limit = format!("//! Doc.\n\n{}{tests}", body(10));
        let over = body(11);
        let sources = [Source::new("a.rs", &at_limit), Source::new("b/c.rs", &over)];
        let p = size_problems("src/", &sources, 10);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("src/b/c.rs: 11 lines of code, over the limit of 10"), "{}", p[0]);
        // The rules of a crate: sizes and cycles for xtask, no layers.
        let xtask = CRATES.iter().find(|c| c.name == "xtask").unwrap();
        let big = Source::new("main.rs", &body(MAX_CODE_LINES + 1));
        let (_, p) = crate_problems(xtask, &[big, Source::new("physics.rs", "fn f() {}\n")]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("rust/xtask/src/main.rs: 1201 lines of code"), "{}", p[0]);
    }

    #[test]
    fn godot_dependencies_fail() {
        let clean = "[package]\nname = \"strata-core\"\ndescription = \"no Godot here\"\n\n\
                     [dependencies]\nnoise.workspace = true # not godot\n\n[dev-dependencies]\ndivan = \"0.1\"\n";
        assert!(godot_dependency_problems("Cargo.toml", clean).is_empty());
        for (bad, line) in [
            ("[dependencies]\ngodot.workspace = true\n", 2),
            ("[dependencies]\nnoise = \"0.9\"\ngd = { package = \"godot\", version = \"0.5\" }\n", 3),
            ("[target.'cfg(unix)'.dependencies]\ngodot-core = \"0.5\"\n", 2),
            ("[dev-dependencies.godot]\nversion = \"0.5\"\n", 1),
            ("[build-dependencies]\ngdext = \"1\"\n", 2),
        ] {
            let p = godot_dependency_problems("Cargo.toml", bad);
            assert_eq!(p.len(), 1, "{bad}: {p:?}");
            assert!(p[0].starts_with(&format!("Cargo.toml:{line}: ")), "{}", p[0]);
        }
    }

    #[test]
    fn xtask_has_no_import_cycle() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let sources = read_sources(&dir).expect("xtask sources");
        let graph = ModuleGraph::parse("rust/xtask/src/", &sources);
        assert!(graph.import_count() > 10);
        assert_eq!(graph.cycle_problems(), Vec::<String>::new());
        let xtask = CRATES.iter().find(|c| c.name == "xtask").unwrap();
        assert_eq!(crate_problems(xtask, &sources).1, Vec::<String>::new());
    }
}
