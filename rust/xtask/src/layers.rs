//! The import-layer check (`cargo xtask lint layers`, the first step of `cargo xtask test`).
//! It reads source text only and compiles nothing, so it takes milliseconds.
//!
//! * strata-core: a file under `rust/strata-core/src/<layer>/` may reach (through `crate::`
//!   paths, in `use` statements or inline) only its own layer and the layers before it in
//!   [`CORE_LAYERS`]; gen3d and gen2d are peers and never reach each other.
//! * strata-core's modules (one per file) import each other without cycles.
//! * strata-core's Cargo.toml names no Godot crate: the core never imports Godot.
//! * xtask's own modules import each other without cycles.
//!
//! Comments, string and char literals, and test code (an item behind `#[cfg(test)]`, such as
//! `mod tests { ... }`, or a file starting with `#![cfg(test)]`) are not read. A path is
//! charged to the longest module (file) it names: `crate::base::simd::avx2` is a use of
//! `base/simd.rs`, `crate::gen2d::TileGrid` one of `gen2d/mod.rs`. Paths that reach the crate
//! root (`crate::step`, root re-exports) are not edges.
//!
//! Uses only [`crate::error`]. The parser and the checks work on in-memory text, which the
//! unit tests below use.

use crate::error::{Context, Result};
use std::collections::{BTreeMap, HashMap, VecDeque};
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
    let to = to.min(out.len());
    for c in &mut out[from..to] {
        if *c != '\n' {
            *c = ' ';
        }
    }
}

/// The source with comments (line, nested block, doc) and string, raw-string and char
/// literals replaced by spaces; same length in chars, same line breaks.
pub fn blank_comments_and_literals(src: &str) -> Vec<char> {
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
            blank(&mut out, i, end);
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
            blank(&mut out, i, end);
            i = end;
        } else if c == '\'' {
            if at(i + 1) == Some('\\') {
                // '\n', '\'', '\u{1F600}': skip the escaped char, then up to the closing quote.
                let end = (i + 3..n).find(|&k| s[k] == '\'').map_or(n, |k| k + 1);
                blank(&mut out, i, end);
                i = end;
            } else if at(i + 2) == Some('\'') {
                blank(&mut out, i, i + 3);
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
/// inline paths (`crate::a::b::f(x)`).
pub fn crate_refs(src: &str) -> Vec<CrateRef> {
    let mut code = blank_comments_and_literals(src);
    blank_test_items(&mut code);
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(code.iter().enumerate().filter(|(_, c)| **c == '\n').map(|(k, _)| k + 1)).collect();
    let parser = PathParser { code: &code, line_starts };
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if is_ident_start(code[i]) && (i == 0 || !is_ident(code[i - 1])) {
            let (word, end) = read_ident(&code, i);
            if word == "crate" {
                let j = skip_ws(&code, end);
                if code.get(j..j + 2) == Some(&[':', ':']) {
                    i = parser.tree(j + 2, Vec::new(), &mut out);
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
}

/// A crate's file modules and the `crate::` imports between them.
#[derive(Debug)]
pub struct ModuleGraph {
    modules: Vec<Module>,
    imports: Vec<Import>,
}

impl ModuleGraph {
    /// Builds the graph of `sources` (files under `src/`); `prefix` is prepended to their
    /// paths in messages (`rust/strata-core/src/`).
    pub fn parse(prefix: &str, sources: &[Source]) -> ModuleGraph {
        let mut sources: Vec<&Source> = sources.iter().collect();
        sources.sort_by(|a, b| a.rel.cmp(&b.rel));
        let modules: Vec<Module> =
            sources.iter().map(|s| Module { name: module_of(&s.rel), file: format!("{prefix}{}", s.rel) }).collect();
        let index: HashMap<String, usize> = modules
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.name.is_empty())
            .map(|(k, m)| (m.name.join("::"), k))
            .collect();
        let mut imports = Vec::new();
        for (from, src) in sources.iter().enumerate() {
            for r in crate_refs(&src.text) {
                // The longest prefix of the path that is a module (file) of this crate.
                let to = (1..=r.path.len()).rev().find_map(|len| index.get(&r.path[..len].join("::")).copied());
                if let Some(to) = to.filter(|&to| to != from) {
                    imports.push(Import { from, to, line: r.line, text: r.text });
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
        format!("{}:{}: `{}`", self.modules[imp.from].file, imp.line, imp.text)
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
                     or add the folder to CORE_LAYERS in rust/xtask/src/layers.rs",
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

/// Runs every check of this module on the repository at `root`.
pub fn check_repo(root: &Path) -> Result<Report> {
    let mut report = Report::default();
    let core = read_sources(&root.join("rust/strata-core/src"))?;
    let graph = ModuleGraph::parse("rust/strata-core/src/", &core);
    report.problems.extend(graph.layer_problems(CORE_LAYERS));
    report.problems.extend(graph.cycle_problems().into_iter().map(|p| format!("strata-core: {p}")));
    let manifest = root.join("rust/strata-core/Cargo.toml");
    let text = fs::read_to_string(&manifest).with_context(|| format!("could not read {}", manifest.display()))?;
    report.problems.extend(godot_dependency_problems("rust/strata-core/Cargo.toml", &text));
    let xtask = read_sources(&root.join("rust/xtask/src"))?;
    let xgraph = ModuleGraph::parse("rust/xtask/src/", &xtask);
    report.problems.extend(xgraph.cycle_problems().into_iter().map(|p| format!("xtask: {p}")));
    report.files = core.len() + xtask.len();
    report.imports = graph.import_count() + xgraph.import_count();
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
        // Root re-exports are not edges.
        assert!(g.imports.iter().all(|i| !g.modules[i.to].name.is_empty()));
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
    }
}
