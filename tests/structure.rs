//! The crate's structure: no import circle between files of src/, no import from a layer to
//! one above it, and no text source file of the repository over 800 lines (src/, tests/,
//! scripts/, docs/, ...; data excluded). The graph is read from the source text
//! (tests/structure/graph.rs, the layer check in tests/structure/layers.rs, what the line
//! limit covers in tests/structure/lengths.rs); the checkers are tested here on synthetic
//! trees, so that a pass on the repository means something.

#[path = "structure/graph.rs"]
mod graph;
#[path = "structure/layers.rs"]
mod layers;
#[path = "structure/lengths.rs"]
mod lengths;

use std::path::{Path, PathBuf};

use graph::{Graph, SourceFile, read_tree};
use layers::Layers;
use lengths::{COVERED_DIRS, COVERED_FILES, is_data, long_files, read_covered};

/// The most lines a text source file may have, anywhere in the repository.
const MAX_LINES: usize = 800;

/// Known problems the check still tolerates, each to be removed by the change that fixes
/// it (an entry that no longer matches a problem fails the check, so the list cannot go
/// stale):
/// none today.
const TOLERATED: [&str; 0] = [];

/// The layers of src/, bottom up (docs/architecture.md explains each): an import may only
/// point to the same layer or one below.
const LAYER_NAMES: [&str; 7] = [
    "metadata",
    "allocator",
    "storage",
    "plan",
    "backend",
    "tensor",
    "tools",
];

/// Where each file of src/ sits (the longest matching path prefix wins):
/// - metadata: pure types and math that import nothing above them; `tensor/arith.rs` (one
///   element's arithmetic, "no tensors") is here because the CUDA backend's element-wise
///   launch names its `ElementOp`; `rng.rs` and `svg.rs` import nothing of the crate.
/// - allocator: the caching allocator, device-agnostic behind its `RawDevice` trait (the
///   CUDA backend's context and the simulated device build on it), but not its CLI.
/// - tensor: `accounting.rs` reports on tensors; `simulated_cuda.rs` is a CUDA device the
///   tensor layer installs (it implements `tensor/device.rs`'s `CudaDevice`).
/// - tools: everything a user runs; they may use each other (report reads bench's records,
///   trace runs explain's steps, the C ABI's allocator parses sizes with `alloc/cli.rs`'s parser).
const LAYER_PLACES: [(&str, &str); 22] = [
    ("dtype.rs", "metadata"),
    ("error.rs", "metadata"),
    ("scalar.rs", "metadata"),
    ("layout/", "metadata"),
    ("rng.rs", "metadata"),
    ("svg.rs", "metadata"),
    ("tensor/arith.rs", "metadata"),
    ("alloc/", "allocator"),
    ("storage.rs", "storage"),
    ("plan.rs", "plan"),
    ("plan/", "plan"),
    ("backend/", "backend"),
    ("tensor/", "tensor"),
    ("accounting.rs", "tensor"),
    ("simulated_cuda.rs", "tensor"),
    ("alloc/cli.rs", "tools"),
    ("explain/", "tools"),
    ("bench/", "tools"),
    ("report/", "tools"),
    ("trace/", "tools"),
    ("ffi/", "tools"),
    ("main.rs", "tools"),
];

/// lib.rs, the crate root, is in no layer: it names every module and re-exports the public
/// API from several layers, and every layer may read its `BUILD` string.
const LAYER_EXEMPT: [&str; 1] = ["lib.rs"];

const SRC_LAYERS: Layers = Layers {
    names: &LAYER_NAMES,
    places: &LAYER_PLACES,
    exempt: &LAYER_EXEMPT,
};

/// The import circles in a tree, one line each.
fn problems(tree: &[SourceFile]) -> Vec<String> {
    Graph::build(tree)
        .cycles()
        .into_iter()
        .map(|cycle| format!("import circle: {}", cycle.join(" <-> ")))
        .collect()
}

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn src_tree() -> Vec<SourceFile> {
    read_tree(&repo_root().join("src")).expect("src/ reads")
}

#[test]
fn src_has_no_import_circle_and_no_upward_import() {
    let tree = src_tree();
    let mut found = problems(&tree);
    found.extend(SRC_LAYERS.problems(&tree));
    let tolerated = |p: &String| TOLERATED.iter().any(|t| p.starts_with(t));
    let new: Vec<&str> = found
        .iter()
        .filter(|p| !tolerated(p))
        .map(|s| s.as_str())
        .collect();
    assert!(
        new.is_empty(),
        "structure problems in src/:\n{}",
        new.join("\n")
    );
    let stale: Vec<&&str> = TOLERATED
        .iter()
        .filter(|t| !found.iter().any(|p| p.starts_with(**t)))
        .collect();
    assert!(stale.is_empty(), "fixed, remove from TOLERATED: {stale:?}");
}

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile {
        path: path.to_string(),
        text: text.to_string(),
    }
}

#[test]
fn a_planted_circle_is_found_through_use_and_inline_paths() {
    let tree = vec![
        file("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        file("a.rs", "use crate::b::B;\npub struct A;\n"),
        file(
            "b.rs",
            "pub struct B;\nfn f() { let _ = crate::c::C::new(); }\n",
        ),
        file(
            "c.rs",
            "pub struct C;\nimpl C { pub fn new() -> C { let _ = super::a::A; C } }\n",
        ),
    ];
    assert_eq!(
        problems(&tree),
        vec!["import circle: a.rs <-> b.rs <-> c.rs".to_string()]
    );
}

#[test]
fn a_facade_that_only_reexports_is_no_circle_but_a_defining_one_is() {
    // x/mod.rs only names and re-exports: x/child.rs importing Base through it depends on
    // x/base.rs, not on mod.rs.
    let facade = vec![
        file("lib.rs", "pub mod x;\n"),
        file(
            "x/mod.rs",
            "pub mod base;\npub mod child;\npub use base::Base;\npub use child::Child;\n",
        ),
        file("x/base.rs", "pub struct Base;\n"),
        file("x/child.rs", "use super::Base;\npub struct Child(Base);\n"),
    ];
    assert!(problems(&facade).is_empty(), "{:?}", problems(&facade));
    assert_eq!(
        Graph::build(&facade).imports_of("x/child.rs"),
        vec!["x/base.rs"]
    );
    // Base defined in mod.rs itself: mod.rs <-> child.rs.
    let defining = vec![
        file("lib.rs", "pub mod x;\n"),
        file(
            "x/mod.rs",
            "pub mod child;\npub use child::Child;\npub struct Base;\n",
        ),
        file("x/child.rs", "use super::Base;\npub struct Child(Base);\n"),
    ];
    assert_eq!(
        problems(&defining),
        vec!["import circle: x/mod.rs <-> x/child.rs".to_string()]
    );
}

#[test]
fn comments_strings_and_other_crates_make_no_edge_but_test_modules_do() {
    let a = "//! See [`crate::b::B`].\n/* crate::b::B */\n\
             pub fn a() -> &'static str { \"crate::b::B\" }\nuse serde::Serialize;\n\
             #[cfg(test)]\nmod tests { use super::*; fn t() { a(); } }\n";
    let mut tree = vec![
        file("lib.rs", "pub mod a;\npub mod b;\n"),
        file("a.rs", a),
        file("b.rs", "use crate::a::a;\npub struct B;\n"),
    ];
    assert!(problems(&tree).is_empty(), "{:?}", problems(&tree));
    tree[1]
        .text
        .push_str("#[cfg(test)]\nmod more { use crate::b::B; }\n");
    assert_eq!(
        problems(&tree),
        vec!["import circle: a.rs <-> b.rs".to_string()]
    );
}

#[test]
fn no_text_source_file_of_the_repository_is_over_800_lines() {
    let tree = read_covered(repo_root(), &COVERED_DIRS, &COVERED_FILES).expect("the tree reads");
    // The walk reaches every kind of source (so a pass means something) and no data.
    for known in [
        "README.md",
        "build.rs",
        "src/lib.rs",
        "tests/structure.rs",
        "benches/cpu.rs",
        "scripts/gen_programs.py",
        "scripts/test",
        "cuda/elementwise.cu",
        "include/stridekit.h",
        "python/stridekit/tracer.py",
        "docs/explain.md",
        "examples/tv209.py",
    ] {
        assert!(tree.iter().any(|f| f.path == known), "{known} not read");
    }
    assert!(!tree.iter().any(|f| is_data(&f.path)));
    let long = long_files(&tree, MAX_LINES);
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them; data belongs under tests/data/ or in a \
         data format, tests/structure/lengths.rs):\n{}",
        long.join("\n")
    );
}

/// A fresh folder for a synthetic tree.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn the_line_limit_covers_sources_everywhere_and_skips_data_and_builds() {
    let root = scratch("structure_lengths");
    let long = "x\n".repeat(MAX_LINES + 1);
    let long = long.as_bytes();
    // Covered: too long ...
    write(&root, "src/a.rs", long);
    write(&root, "docs/deep/page.md", long);
    write(&root, "scripts/gen/part.py", long);
    write(&root, "build.rs", long);
    // ... and at the limit.
    write(&root, "tests/ok.rs", "x\n".repeat(MAX_LINES).as_bytes());
    // Not covered: data by folder, extension or name; skipped folders; binaries; a folder
    // and a root file outside the covered set.
    write(&root, "tests/data/trace.rs", long);
    write(&root, "docs/plot.svg", long);
    write(&root, "bench/results/bench.json", long);
    write(&root, "tests/golden/ops.jsonl.gz", long);
    write(&root, "tests/view.proptest-regressions", long);
    write(&root, "python/Cargo.lock", long);
    write(&root, "scripts/__pycache__/part.py", long);
    write(&root, "python/target/gen.rs", long);
    write(
        &root,
        "python/stridekit/module.so",
        &[b'\n', 0xff, 0xfe, b'\n'].repeat(MAX_LINES),
    );
    write(&root, "elsewhere/notes.md", long);
    write(&root, "notes.md", long);
    let tree = read_covered(&root, &COVERED_DIRS, &COVERED_FILES).unwrap();
    let paths: Vec<&str> = tree.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "build.rs",
            "docs/deep/page.md",
            "scripts/gen/part.py",
            "src/a.rs",
            "tests/ok.rs"
        ]
    );
    assert_eq!(
        long_files(&tree, MAX_LINES),
        [
            "build.rs: 801 lines (at most 800)",
            "docs/deep/page.md: 801 lines (at most 800)",
            "scripts/gen/part.py: 801 lines (at most 800)",
            "src/a.rs: 801 lines (at most 800)",
        ]
    );
}

#[test]
fn a_long_file_is_found_in_every_directory() {
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    let tree = vec![
        file("lib.rs", "pub mod a;\npub mod explain;\npub mod ok;\n"),
        file("a.rs", &long),
        file("explain/mod.rs", &long),
        file("ok.rs", &"fn f() {}\n".repeat(MAX_LINES)),
    ];
    assert!(problems(&tree).is_empty(), "{:?}", problems(&tree));
    assert_eq!(
        long_files(&tree, MAX_LINES),
        vec![
            format!("a.rs: {} lines (at most {MAX_LINES})", MAX_LINES + 1),
            format!(
                "explain/mod.rs: {} lines (at most {MAX_LINES})",
                MAX_LINES + 1
            ),
        ]
    );
}

#[test]
fn a_binary_root_is_a_crate_of_its_own() {
    let tree = vec![
        file("lib.rs", "pub mod a;\npub fn helper() {}\n"),
        file("a.rs", "pub fn a() { crate::helper(); }\n"),
        file(
            "main.rs",
            "fn helper() {}\nfn main() { crate::helper(); stridekit::a::a(); }\n",
        ),
    ];
    let g = Graph::build(&tree);
    assert_eq!(g.imports_of("a.rs"), vec!["lib.rs"]);
    assert!(g.imports_of("main.rs").is_empty());
}

/// A small layer table for the synthetic trees: base < core < tools, `core/pure.rs` in base.
const TEST_LAYERS: Layers = Layers {
    names: &["base", "core", "tools"],
    places: &[
        ("base.rs", "base"),
        ("core/", "core"),
        ("core/pure.rs", "base"),
        ("tools/", "tools"),
    ],
    exempt: &["lib.rs"],
};

fn layered_tree() -> Vec<SourceFile> {
    vec![
        file("lib.rs", "pub mod base;\npub mod core;\npub mod tools;\n"),
        file("base.rs", "pub struct B;\n"),
        file(
            "core/mod.rs",
            "pub mod pure;\npub mod engine;\npub use pure::P;\n",
        ),
        file("core/pure.rs", "use crate::base::B;\npub struct P(B);\n"),
        file(
            "core/engine.rs",
            "use crate::base::B;\nuse super::P;\npub struct E(B, P);\n",
        ),
        file(
            "tools/run.rs",
            "use crate::core::engine::E;\npub fn run(_: E) { let _ = crate::base::B; }\n",
        ),
    ]
}

#[test]
fn downward_imports_pass_the_layer_check() {
    assert!(
        TEST_LAYERS.problems(&layered_tree()).is_empty(),
        "{:?}",
        TEST_LAYERS.problems(&layered_tree())
    );
    assert_eq!(TEST_LAYERS.of("core/pure.rs"), Some((0, "base")));
    assert_eq!(TEST_LAYERS.of("core/engine.rs"), Some((1, "core")));
    assert_eq!(TEST_LAYERS.of("lib.rs"), None);
}

#[test]
fn a_planted_upward_import_is_found() {
    let mut tree = layered_tree();
    // base.rs names a tool through a path in code; the engine imports it by `use`.
    tree[1]
        .text
        .push_str("fn f() { crate::tools::run::run; }\n");
    tree[4].text.push_str("use crate::tools::run::run;\n");
    assert_eq!(
        TEST_LAYERS.problems(&tree),
        vec![
            "upward import: base.rs (base) -> tools/run.rs (tools)".to_string(),
            "upward import: core/engine.rs (core) -> tools/run.rs (tools)".to_string(),
        ]
    );
}

#[test]
fn an_upward_import_through_a_reexport_is_found_and_one_of_a_low_file_is_not() {
    let mut tree = layered_tree();
    // core/pure.rs is in base: importing P (re-exported by core/mod.rs) from base.rs goes
    // down to base, but importing the engine through the same facade goes up to core.
    tree[1].text.push_str("use crate::core::P;\n");
    assert!(TEST_LAYERS.problems(&tree).is_empty());
    tree[2].text.push_str("pub use engine::E;\n");
    tree[3].text.push_str("use crate::core::E;\n");
    assert_eq!(
        TEST_LAYERS.problems(&tree),
        vec!["upward import: core/pure.rs (base) -> core/engine.rs (core)".to_string()]
    );
}

#[test]
fn a_file_in_no_layer_and_an_unknown_layer_name_are_problems() {
    let mut tree = layered_tree();
    tree.push(file("extra.rs", "pub struct X;\n"));
    let places = [("base.rs", "base"), ("core/", "middle")];
    let table = Layers {
        names: &["base", "core"],
        places: &places,
        exempt: &["lib.rs"],
    };
    let found = table.problems(&tree);
    assert!(found.contains(&"layer table: core/ is in no layer named middle".to_string()));
    assert!(
        found.contains(&"no layer: extra.rs".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"no layer: tools/run.rs".to_string()),
        "{found:?}"
    );
    assert!(!found.iter().any(|p| p.contains("lib.rs")), "{found:?}");
}
