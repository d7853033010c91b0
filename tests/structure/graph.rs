//! The file-level import graph of a Rust source tree, read as text.
//!
//! A file depends on another when it names an item the other defines: through a `use`
//! declaration or a path in code starting with `crate::`, `super::`, `self::`, a child
//! module's name or a name a `use` brought in. Paths are resolved through the module tree
//! and through re-exports (`pub use`, globs), so a facade `mod.rs` that only re-exports
//! does not stand between a child and its sibling. Comments (doc comments too: their
//! links compile to nothing) and string literals are skipped. What cannot be resolved
//! (a macro, an item of an external crate) makes no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file: its path relative to the tree's root and its text.
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// Every `.rs` file under `root`, sorted by path.
pub fn read_tree(root: &Path) -> std::io::Result<Vec<SourceFile>> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<SourceFile>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, root, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                out.push(SourceFile {
                    path: rel.to_string_lossy().replace('\\', "/"),
                    text: std::fs::read_to_string(&path)?,
                });
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, root, &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The module path (`["alloc", "policy"]`) a file at `path` (`alloc/policy.rs`) holds. A
/// binary's root (`main.rs`, `bin/x.rs`) is a crate of its own, rooted at its path.
fn module_of(path: &str) -> Vec<String> {
    if path == "main.rs" || path.starts_with("bin/") {
        return vec![path.to_string()];
    }
    let p = PathBuf::from(path.trim_end_matches(".rs"));
    let mut segs: Vec<String> = p.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(
        segs.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segs.pop();
    }
    segs
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Punct(char),
}

/// The tokens that matter for paths, with comments, strings, chars and lifetimes removed.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r'
            && matches!(c.get(i + 1), Some('"' | '#'))
            && raw_string_end(&c, i).is_some()
        {
            i = raw_string_end(&c, i).unwrap_or(c.len());
        } else if ch == 'b' && c.get(i + 1) == Some(&'"') {
            i = string_end(&c, i + 1);
        } else if ch == '"' {
            i = string_end(&c, i);
        } else if ch == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            out.push(Tok::Ident(word.trim_start_matches("r#").to_string()));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Colons);
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(Tok::Punct(ch));
            }
            i += 1;
        }
    }
    out
}

/// The index just past a string literal whose opening quote is at `i`.
fn string_end(c: &[char], mut i: usize) -> usize {
    i += 1;
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    c.len()
}

/// The index just past a raw string `r#".."#` starting at `i`, or None when it is not one.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < c.len() {
        if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(c.len())
}

/// What one module (a file, or an inline `mod x { .. }` in one) declares.
#[derive(Default, Debug)]
struct Module {
    /// The file holding it (None until that file is read).
    file: Option<usize>,
    /// Names of items defined here (functions, types, constants, macros, modules).
    items: BTreeSet<String>,
    /// Whether it defines an item other than a module.
    defines: bool,
    /// `use` imports: local name -> absolute path (from the crate root).
    imports: BTreeMap<String, Vec<String>>,
    /// `use path::*`: absolute paths of the globbed modules.
    globs: Vec<Vec<String>>,
}

/// A path named by a file: absolute, and whether it is a glob import.
struct Reference {
    file: usize,
    path: Vec<String>,
    glob: bool,
}

const ITEM_KEYWORDS: [&str; 9] = [
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
];

/// The import graph: for each file (by index into the tree), the files it depends on.
pub struct Graph {
    pub files: Vec<String>,
    pub edges: Vec<BTreeSet<usize>>,
}

impl Graph {
    pub fn build(tree: &[SourceFile]) -> Graph {
        let mut modules: BTreeMap<Vec<String>, Module> = BTreeMap::new();
        let mut refs = Vec::new();
        for (f, file) in tree.iter().enumerate() {
            let here = module_of(&file.path);
            let root = crate_root(&file.path);
            let scan = Scan {
                file: f,
                root: &root,
            };
            scan.file_tokens(&here, &tokens(&file.text), &mut modules, &mut refs);
        }
        let mut edges = vec![BTreeSet::new(); tree.len()];
        for r in &refs {
            if let Some(target) = resolve(&modules, &r.path, r.glob, 0)
                && target != r.file
            {
                edges[r.file].insert(target);
            }
        }
        Graph {
            files: tree.iter().map(|f| f.path.clone()).collect(),
            edges,
        }
    }

    /// The files `path` imports from.
    pub fn imports_of(&self, path: &str) -> Vec<&str> {
        let Some(f) = self.files.iter().position(|p| p == path) else {
            return Vec::new();
        };
        self.edges[f]
            .iter()
            .map(|&t| self.files[t].as_str())
            .collect()
    }

    /// Every import circle: each group of files that reach one another through imports
    /// (a strongly connected group of two or more), in the tree's order.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let n = self.files.len();
        let reach = |from: usize| {
            let mut seen = vec![false; n];
            let mut stack = vec![from];
            while let Some(v) = stack.pop() {
                for &w in &self.edges[v] {
                    if !seen[w] {
                        seen[w] = true;
                        stack.push(w);
                    }
                }
            }
            seen
        };
        let reaches: Vec<Vec<bool>> = (0..n).map(reach).collect();
        let mut done = vec![false; n];
        let mut out = Vec::new();
        for v in 0..n {
            if done[v] || !reaches[v][v] {
                continue;
            }
            let group: Vec<usize> = (0..n).filter(|&w| reaches[v][w] && reaches[w][v]).collect();
            for &w in &group {
                done[w] = true;
            }
            out.push(group.iter().map(|&w| self.files[w].clone()).collect());
        }
        out
    }
}

/// The module path `crate` names in a file: the library's root, or a binary's.
fn crate_root(path: &str) -> Vec<String> {
    let m = module_of(path);
    if m.first().is_some_and(|s| s.ends_with(".rs")) {
        m[..1].to_vec()
    } else {
        Vec::new()
    }
}

/// One file being read: its index and the root of its crate.
struct Scan<'a> {
    file: usize,
    root: &'a [String],
}

impl Scan<'_> {
    /// Walks one file's tokens: item definitions and `use` imports per (inline) module, and the
    /// paths its code names.
    fn file_tokens(
        &self,
        root: &[String],
        toks: &[Tok],
        modules: &mut BTreeMap<Vec<String>, Module>,
        refs: &mut Vec<Reference>,
    ) {
        let file = self.file;
        // The module stack: (module path, brace depth inside which it is open).
        let mut stack: Vec<(Vec<String>, usize)> = vec![(root.to_vec(), 0)];
        modules.entry(root.to_vec()).or_default().file = Some(file);
        let mut depth = 0usize;
        let mut i = 0;
        let after_colons = |i: usize| i > 0 && toks[i - 1] == Tok::Colons;
        while i < toks.len() {
            let here = stack.last().map(|s| s.0.clone()).unwrap_or_default();
            match &toks[i] {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if stack.len() > 1 && stack.last().is_some_and(|s| s.1 == depth) {
                        stack.pop();
                    }
                }
                Tok::Ident(w) if w == "use" && !after_colons(i) => {
                    let end = toks[i..]
                        .iter()
                        .position(|t| *t == Tok::Punct(';'))
                        .map_or(toks.len(), |p| i + p);
                    let mut leaves = Vec::new();
                    use_tree(&toks[i + 1..end], &[], &mut leaves);
                    let m = modules.entry(here.clone()).or_default();
                    for (segs, local) in leaves {
                        let Some(abs) = absolute(self.root, &here, &segs) else {
                            continue;
                        };
                        match &local {
                            Some(l) if l != "_" => {
                                m.imports.insert(l.clone(), abs.clone());
                            }
                            Some(_) => {}
                            // The same glob in several functions is one glob: each
                            // copy was another branch at every step of `resolve`
                            // (exponential in its depth: the test hung).
                            None if m.globs.contains(&abs) => {}
                            None => m.globs.push(abs.clone()),
                        }
                        let glob = local.is_none();
                        refs.push(Reference {
                            file,
                            path: abs,
                            glob,
                        });
                    }
                    i = end;
                    continue;
                }
                Tok::Ident(w) if ITEM_KEYWORDS.contains(&w.as_str()) || w == "macro_rules" => {
                    let mut j = i + 1;
                    if w == "macro_rules" && toks.get(j) == Some(&Tok::Punct('!')) {
                        j += 1;
                    }
                    if let Some(Tok::Ident(name)) = toks.get(j)
                        && !ITEM_KEYWORDS.contains(&name.as_str())
                        && name != "mut"
                    {
                        {
                            let m = modules.entry(here.clone()).or_default();
                            m.items.insert(name.clone());
                            m.defines |= w != "mod";
                            if w == "mod" {
                                let mut child = here.clone();
                                child.push(name.clone());
                                let inline = toks.get(j + 1) == Some(&Tok::Punct('{'));
                                let c = modules.entry(child.clone()).or_default();
                                if inline {
                                    c.file = Some(file);
                                    stack.push((child, depth));
                                }
                            }
                        }
                    }
                }
                Tok::Ident(first) if toks.get(i + 1) == Some(&Tok::Colons) && !after_colons(i) => {
                    let mut segs = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Tok::Colons) {
                        match toks.get(j + 1) {
                            Some(Tok::Ident(s)) => segs.push(s.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    if let Some(path) = absolute(self.root, &here, &segs) {
                        refs.push(Reference {
                            file,
                            path,
                            glob: false,
                        });
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Resolves an absolute path to the file defining what it names; None when it leaves the
/// crate or names nothing known. A glob names its module's file when that file defines
/// items of its own (which of them the importer uses is not known).
fn resolve(
    modules: &BTreeMap<Vec<String>, Module>,
    path: &[String],
    glob: bool,
    depth: usize,
) -> Option<usize> {
    if depth > 16 {
        return None;
    }
    let mut i = 0;
    while i < path.len() && modules.contains_key(&path[..=i]) {
        i += 1;
    }
    let module = modules.get(&path[..i])?;
    let Some(name) = path.get(i) else {
        // A module itself: `use crate::x;` names no item yet (paths through it do).
        return module.file.filter(|_| glob && module.defines);
    };
    if module.items.contains(name) {
        return module.file;
    }
    if let Some(target) = module.imports.get(name) {
        let mut full = target.clone();
        full.extend_from_slice(&path[i + 1..]);
        return resolve(modules, &full, glob, depth + 1);
    }
    module.globs.iter().find_map(|g| {
        let mut full = g.clone();
        full.extend_from_slice(&path[i..]);
        resolve(modules, &full, glob, depth + 1)
    })
}

/// The absolute form of a path written in module `here` (a path starting with any other
/// name is taken as relative to `here`: resolution follows the module's imports from there,
/// and an external crate's path resolves to nothing).
fn absolute(root: &[String], here: &[String], segs: &[String]) -> Option<Vec<String>> {
    let mut base = here.to_vec();
    let mut rest = segs;
    match segs.first().map(String::as_str) {
        Some("crate") => {
            base = root.to_vec();
            rest = &segs[1..];
        }
        Some("self") => rest = &segs[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(_) => {}
        None => return None,
    }
    base.extend_from_slice(rest);
    Some(base)
}

/// A `use` tree's leaf: the path and the local name it binds (None for a glob).
type Leaf = (Vec<String>, Option<String>);

/// Flattens a `use` tree (the tokens after `use`, before `;`) into its leaves.
fn use_tree(toks: &[Tok], prefix: &[String], out: &mut Vec<Leaf>) {
    let mut segs = prefix.to_vec();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(w) if w == "as" => {
                if let Some(Tok::Ident(a)) = toks.get(i + 1) {
                    out.push((segs, Some(a.clone())));
                }
                return;
            }
            Tok::Ident(w) => segs.push(w.clone()),
            Tok::Punct('*') => {
                out.push((segs, None));
                return;
            }
            Tok::Punct('{') => {
                // Each top-level comma-separated part of the group is a tree of its own.
                let mut level = 0;
                let mut start = i + 1;
                for j in i + 1..toks.len() {
                    match toks[j] {
                        Tok::Punct('{') => level += 1,
                        Tok::Punct('}') if level == 0 => {
                            use_tree(&toks[start..j], &segs, out);
                            return;
                        }
                        Tok::Punct('}') => level -= 1,
                        Tok::Punct(',') if level == 0 => {
                            use_tree(&toks[start..j], &segs, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            _ => {}
        }
        i += 1;
    }
    if segs.len() == prefix.len() {
        return; // an empty part, as after a trailing comma
    }
    if segs.last().map(String::as_str) == Some("self") {
        segs.pop();
    }
    if let Some(local) = segs.last().cloned() {
        out.push((segs, Some(local)));
    }
}
