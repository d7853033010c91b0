//! The supported-op list of docs/explain.md is the op table's (src/explain/op_table):
//! the block between the `op-table` markers must be exactly what
//! `stridekit::explain::op_table::markdown()` makes. To regenerate it after changing the
//! table, run this test with STRIDEKIT_UPDATE_DOCS=1.

const BEGIN: &str = "<!-- op-table:begin (generated from src/explain/op_table; tests/explain_op_table.rs checks it) -->\n";
const END: &str = "<!-- op-table:end -->";

#[test]
fn docs_list_the_op_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/explain.md");
    let docs = std::fs::read_to_string(&path).expect("docs/explain.md reads");
    let table = stridekit::explain::op_table::markdown().expect("the op table builds");
    let start = docs
        .find(BEGIN)
        .expect("docs/explain.md has the op-table begin marker")
        + BEGIN.len();
    let end = docs[start..].find(END).expect("and the end marker") + start;
    if std::env::var_os("STRIDEKIT_UPDATE_DOCS").is_some() {
        let updated = format!("{}{table}{}", &docs[..start], &docs[end..]);
        std::fs::write(&path, updated).expect("docs/explain.md writes");
        return;
    }
    assert!(
        docs[start..end] == table,
        "docs/explain.md's op list differs from the op table; rerun with STRIDEKIT_UPDATE_DOCS=1"
    );
}

#[test]
fn the_table_names_every_surface_once() {
    let ops = stridekit::explain::op_table::ops().expect("the op table builds");
    assert!(ops.len() >= 150, "{} ops", ops.len());
    let mut seen = std::collections::HashSet::new();
    for op in ops {
        for s in &op.surfaces {
            for n in std::iter::once(&op.name).chain(op.aliases) {
                assert!(seen.insert((format!("{s:?}"), *n)), "{n} twice on {s:?}");
            }
        }
    }
}
