//! The line limit over the whole repository: which files it covers (the text sources, not the
//! data), how they are found, and which are too long.

use std::path::Path;

use crate::graph::SourceFile;

/// The folders whose text files the limit covers (walked to every depth, relative to the
/// repository root): the crate, its tests and benches, the scripts, the CUDA kernels and the C
/// header, the Python module, the documentation, the examples, the recorded bench notes, the
/// build helpers and the CI script. A new top-level folder of sources belongs here.
pub const COVERED_DIRS: [&str; 12] = [
    "src", "tests", "benches", "bench", "build", "scripts", "cuda", "include", "python", "docs",
    "examples", ".ci",
];

/// The files at the repository root the limit covers.
pub const COVERED_FILES: [&str; 4] = ["build.rs", "README.md", "Cargo.toml", "cbindgen.toml"];

/// Data, not source, whatever its length: generated or recorded tables, reports, plots,
/// pickles and compressed files (by the end of the name) and proptest's recorded failures;
/// also [`DATA_FILES`] and everything under [`DATA_DIRS`].
pub const DATA_EXTENSIONS: [&str; 9] = [
    "json",
    "jsonl",
    "csv",
    "tsv",
    "txt",
    "svg",
    "pickle",
    "gz",
    "proptest-regressions",
];

/// Data files by name, wherever they sit: cargo's lockfile.
pub const DATA_FILES: [&str; 1] = ["Cargo.lock"];

/// Folders of data (path prefixes, relative to the root): the recorded traces, fleets,
/// fences and fixtures the tests read.
pub const DATA_DIRS: [&str; 2] = ["tests/data/", "python/tests/data/"];

/// Folders that are no part of the sources wherever they sit (git ignores them): Python's
/// byte-code and pytest caches, and cargo's build outputs.
pub const SKIPPED_DIR_NAMES: [&str; 3] = ["__pycache__", ".pytest_cache", "target"];

/// Whether the file at `path` (relative, `/`-separated) is data by its folder or its name.
pub fn is_data(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    DATA_DIRS.iter().any(|d| path.starts_with(d))
        || DATA_FILES.contains(&name)
        || DATA_EXTENSIONS
            .iter()
            .any(|e| name.len() > e.len() + 1 && name.ends_with(&format!(".{e}")))
}

/// Every covered text file under `root`: the files of `dirs` (walked) and `files`, less data,
/// skipped folders and files that are not UTF-8 text (binaries such as the Python module's
/// `.so`), sorted by path. A covered folder or file that does not exist is skipped.
pub fn read_covered(
    root: &Path,
    dirs: &[&str],
    files: &[&str],
) -> std::io::Result<Vec<SourceFile>> {
    fn add(root: &Path, path: &Path, out: &mut Vec<SourceFile>) -> std::io::Result<()> {
        let rel = path.strip_prefix(root).unwrap_or(path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        if is_data(&rel) {
            return Ok(());
        }
        if let Ok(text) = String::from_utf8(std::fs::read(path)?) {
            out.push(SourceFile { path: rel, text });
        }
        Ok(())
    }
    fn walk(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                let name = entry.file_name();
                if !SKIPPED_DIR_NAMES.iter().any(|s| name == *s) {
                    walk(root, &path, out)?;
                }
            } else if kind.is_file() {
                add(root, &path, out)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for dir in dirs {
        let path = root.join(dir);
        if path.is_dir() {
            walk(root, &path, &mut out)?;
        }
    }
    for file in files {
        let path = root.join(file);
        if path.is_file() {
            add(root, &path, &mut out)?;
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The files of `tree` over `max` lines, one line each.
pub fn long_files(tree: &[SourceFile], max: usize) -> Vec<String> {
    tree.iter()
        .filter_map(|f| {
            let lines = f.text.lines().count();
            (lines > max).then(|| format!("{}: {lines} lines (at most {max})", f.path))
        })
        .collect()
}
