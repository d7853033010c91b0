//! The bench suite's cases are data (src/bench/cases/cases.toml): every case the suite had
//! when it was still code is listed as it was (tests/data/bench_cases/, recorded from
//! `stridekit bench --list` before the move), with the same recipe, view and byte counts,
//! in the same order.

use std::process::Command;

use serde_json::Value;

fn stridekit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .output()
        .expect("run stridekit");
    assert!(
        out.status.success(),
        "stridekit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn recorded(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bench_cases")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every item of `old` is in `new`, in the same order (`new` may hold more between them);
/// `key` names an item in the failure message.
fn kept_in_order<T: PartialEq + std::fmt::Debug>(old: &[T], new: &[T], key: impl Fn(&T) -> String) {
    let mut at = 0;
    for item in old {
        match new[at..].iter().position(|n| n == item) {
            Some(p) => at += p + 1,
            None => panic!(
                "{} is no longer listed as it was (or out of order):\nwas {item:?}",
                key(item)
            ),
        }
    }
}

fn check_spec(args: &[&str], file: &str) {
    let mut new: Value = serde_json::from_str(&stridekit(args)).expect("spec is JSON");
    let old: Value = serde_json::from_str(&recorded(file)).expect("recorded spec is JSON");
    new.as_object_mut().unwrap().remove("stridekit_version");
    for field in ["suite", "quick", "seed", "memcpy_case"] {
        assert_eq!(new[field], old[field], "{file}: {field}");
    }
    let (old, new) = (
        old["cases"].as_array().unwrap(),
        new["cases"].as_array().unwrap(),
    );
    assert_eq!(old.len(), 46, "{file}");
    kept_in_order(old, new, |c| format!("{file}: case {}", c["case"]));
}

#[test]
fn the_full_suite_lists_every_recorded_case_as_it_was() {
    check_spec(&["bench", "--list", "--json", "-"], "list_full.json");
}

#[test]
fn the_quick_suite_lists_every_recorded_case_as_it_was() {
    check_spec(
        &["bench", "--list", "--quick", "--json", "-"],
        "list_quick.json",
    );
}

#[test]
fn another_seed_lists_the_recorded_random_cases_of_that_seed() {
    check_spec(
        &["bench", "--list", "--seed", "7", "--json", "-"],
        "list_seed7.json",
    );
}

#[test]
fn the_text_list_keeps_every_recorded_line() {
    let new = stridekit(&["bench", "--list"]);
    let old = recorded("list.txt");
    let (new, old): (Vec<&str>, Vec<&str>) = (new.lines().collect(), old.lines().collect());
    assert_eq!(new[0], old[0], "header");
    kept_in_order(&old, &new, |l| format!("line '{l}'"));
}

#[test]
fn the_checker_sees_a_changed_or_reordered_case() {
    let old = vec![1, 2, 3];
    kept_in_order(&old, &[1, 9, 2, 3], |x| x.to_string());
    for new in [vec![1, 3], vec![2, 1, 3], vec![1, 2, 4]] {
        let r = std::panic::catch_unwind(|| kept_in_order(&old, &new, |x| x.to_string()));
        assert!(r.is_err(), "{new:?}");
    }
}
