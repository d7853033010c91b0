//! src/explain's own structure, measured with the crate's structure checker
//! (tests/structure/graph.rs): no file over 800 lines, and the import circles inside
//! src/explain that remain, listed exactly so that a new one fails and a fixed one must be
//! removed from the list (tests/structure.rs exempts src/explain until the list is empty).

#[allow(dead_code)] // the checker's other helpers serve tests/structure.rs
#[path = "structure/graph.rs"]
mod graph;

use graph::{Graph, read_tree};

/// The circles among src/explain's files today (each strongly connected group once, files
/// in the tree's order), measured on 2026-12-02:
/// - autograd/formula.rs <-> autograd/node.rs: a node holds its formula, the formula reads
///   the node's inputs and saved tensors.
///
/// Gone on 2026-12-02 (issue 21 item 3): the evaluator's circle (builtins, env, eval, exec,
/// indexing, ops, pycalls): ops.rs and indexing.rs reach the program through ops::Host (env.rs
/// implements it) and bind through the op table; exceptions::Exc moved from exec.rs and
/// pyops::dict_insert from eval.rs; builtins.rs and pycalls.rs name env.rs; exec.rs runs the
/// program (run_observed moved from eval.rs) and hands eval.rs its `def` calls through
/// Env::call_def. Also ast.rs <-> ast/display.rs (pyfmt.rs now names
/// `ast::display::write_str_literal` instead of ast.rs re-exporting it) and lexer.rs <->
/// parse.rs <-> parse/targets.rs (ParseError lives in parse_error.rs, below the three).
const KNOWN: &[&str] = &["explain/autograd/formula.rs <-> explain/autograd/node.rs"];

#[test]
fn explain_has_no_long_file_and_only_the_known_circles() {
    let tree = read_tree(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
        .expect("src/ reads");
    for f in tree.iter().filter(|f| f.path.starts_with("explain/")) {
        let lines = f.text.lines().count();
        assert!(lines <= 800, "{}: {lines} lines", f.path);
    }
    let circles: Vec<String> = Graph::build(&tree)
        .cycles()
        .into_iter()
        .filter(|c| c.iter().any(|p| p.starts_with("explain/")))
        .map(|c| c.join(" <-> "))
        .collect();
    let listed: Vec<String> = KNOWN.iter().map(|s| s.to_string()).collect();
    assert_eq!(circles, listed, "src/explain's import circles changed");
}
