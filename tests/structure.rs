//! The crate's structure: no import circle between files of src/ and no src file over 800
//! lines (src/explain excepted: its op table has an issue of its own). The graph is read
//! from the source text (tests/structure/graph.rs); the checker is tested here on
//! synthetic trees, so that a pass on src/ means something.

#[path = "structure/graph.rs"]
mod graph;

use graph::{Graph, SourceFile, read_tree};

/// The most lines a source file may have.
const MAX_LINES: usize = 800;

/// Whether a file (relative to src/) is outside what the check covers.
fn exempt(path: &str) -> bool {
    path.starts_with("explain/")
}

/// Known problems the check still tolerates, each to be removed by the change that fixes
/// it (an entry that no longer matches a problem fails the check, so the list cannot go
/// stale):
/// - alloc/mod.rs <-> alloc/host_device.rs: the allocator's facade defines the device
///   interface that host_device implements (the allocator's own split, issue 19 item 2).
/// - plan.rs <-> plan/elementwise.rs: the copy plan's folding lives in plan.rs, which
///   also re-exports the element-wise plan built on it (a plan/fold.rs would break it).
const TOLERATED: [&str; 2] = [
    "import circle: alloc/host_device.rs <-> alloc/mod.rs",
    "import circle: plan.rs <-> plan/elementwise.rs",
];

/// The problems in a tree: import circles and long files, one line each.
fn problems(tree: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in tree.iter().filter(|f| !exempt(&f.path)) {
        let lines = f.text.lines().count();
        if lines > MAX_LINES {
            out.push(format!("{}: {lines} lines (at most {MAX_LINES})", f.path));
        }
    }
    for cycle in Graph::build(tree).cycles() {
        let outside: Vec<&String> = cycle.iter().filter(|p| !exempt(p)).collect();
        if !outside.is_empty() {
            out.push(format!("import circle: {}", cycle.join(" <-> ")));
        }
    }
    out
}

fn src_tree() -> Vec<SourceFile> {
    read_tree(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).expect("src/ reads")
}

#[test]
fn src_has_no_import_circle_and_no_long_file() {
    let found = problems(&src_tree());
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
fn a_long_file_is_found_and_explain_is_exempt() {
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    let tree = vec![
        file("lib.rs", "pub mod a;\npub mod explain;\npub mod ok;\n"),
        file("a.rs", &long),
        file("explain/mod.rs", &long),
        file("ok.rs", &"fn f() {}\n".repeat(MAX_LINES)),
    ];
    assert_eq!(
        problems(&tree),
        vec![format!(
            "a.rs: {} lines (at most {MAX_LINES})",
            MAX_LINES + 1
        )]
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
