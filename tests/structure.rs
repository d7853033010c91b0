//! The crate's structure: no import circle between files of src/, no src file over 800
//! lines, and no import from a layer to one above it. The graph is read from the
//! source text (tests/structure/graph.rs, the layer check in tests/structure/layers.rs);
//! the checkers are tested here on synthetic trees, so that a pass on src/ means something.

#[path = "structure/graph.rs"]
mod graph;
#[path = "structure/layers.rs"]
mod layers;

use graph::{Graph, SourceFile, read_tree};
use layers::Layers;

/// The most lines a source file may have.
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

/// The problems in a tree: import circles and long files, one line each.
fn problems(tree: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in tree {
        let lines = f.text.lines().count();
        if lines > MAX_LINES {
            out.push(format!("{}: {lines} lines (at most {MAX_LINES})", f.path));
        }
    }
    for cycle in Graph::build(tree).cycles() {
        out.push(format!("import circle: {}", cycle.join(" <-> ")));
    }
    out
}

fn src_tree() -> Vec<SourceFile> {
    read_tree(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).expect("src/ reads")
}

#[test]
fn src_has_no_import_circle_no_long_file_and_no_upward_import() {
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
fn a_long_file_is_found_in_every_directory() {
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    let tree = vec![
        file("lib.rs", "pub mod a;\npub mod explain;\npub mod ok;\n"),
        file("a.rs", &long),
        file("explain/mod.rs", &long),
        file("ok.rs", &"fn f() {}\n".repeat(MAX_LINES)),
    ];
    assert_eq!(
        problems(&tree),
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
