//! Shared by the allocator tests: the shipped traces and a scratch folder.

#![allow(dead_code)]

use stridekit::alloc::trace::{self, Trace};

/// The synthetic traces shipped in tests/data/alloc/.
pub const SHIPPED: [&str; 3] = [
    "trace_llm_serving.csv",
    "trace_random.csv",
    "trace_training.csv",
];

/// The settings PyTorch's recorded runs of the shipped traces used.
pub const RECORDED_SETTINGS: [&str; 4] = [
    "default",
    "expandable_segments:True",
    "max_split_size_mb:128",
    "roundup_power2_divisions:4",
];

/// Path of a file in tests/data/alloc/.
pub fn data(name: &str) -> String {
    format!("{}/tests/data/alloc/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A shipped trace, read.
pub fn shipped(name: &str) -> Trace {
    trace::read_trace(data(name).as_ref()).unwrap()
}

/// A path in a scratch folder of this test process, `tag` naming the test file.
pub fn tmp(tag: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("stridekit-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The real model traces in tests/data/alloc/real/ (scripts/record_model_traces.py).
pub const REAL: [&str; 8] = [
    "real/gpt2_train.csv",
    "real/gpt2_generate.csv",
    "real/bert_serve.csv",
    "real/resnet50_train.csv",
    "real/llm_serve.csv",
    "real/moe_train.csv",
    "real/vit_train.csv",
    "real/dynamic_serve.csv",
];

/// A trace of tests/data/alloc/, read (plain or gzipped: `NAME` or `NAME.gz`).
pub fn shipped_any(name: &str) -> Trace {
    let plain = data(name);
    let path = if std::path::Path::new(&plain).exists() {
        plain
    } else {
        format!("{plain}.gz")
    };
    trace::read_trace(path.as_ref()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Which half of the corpus a trace is in (tests/data/alloc/corpus/README.md, the rule
/// written before tuning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    Tuning,
    HeldOut,
}

/// The corpus of issue 22: every trace, by its path under tests/data/alloc/ (plain or
/// `.gz`), with its half.
pub const CORPUS: [(&str, Half); 20] = [
    ("trace_llm_serving.csv", Half::Tuning),
    ("trace_random.csv", Half::Tuning),
    ("trace_training.csv", Half::Tuning),
    ("real/gpt2_train.csv", Half::Tuning),
    ("real/gpt2_generate.csv", Half::Tuning),
    ("real/bert_serve.csv", Half::Tuning),
    ("real/resnet50_train.csv", Half::Tuning),
    ("corpus/llm_serving_s1.csv", Half::Tuning),
    ("corpus/random_s1.csv", Half::Tuning),
    ("corpus/training_s1.csv", Half::Tuning),
    ("corpus/llm_serving_s2.csv", Half::HeldOut),
    ("corpus/llm_serving_s5.csv", Half::HeldOut),
    ("corpus/random_s2.csv", Half::HeldOut),
    ("corpus/random_s5.csv", Half::HeldOut),
    ("corpus/training_s2.csv", Half::HeldOut),
    ("corpus/training_s5.csv", Half::HeldOut),
    ("real/llm_serve.csv", Half::HeldOut),
    ("real/moe_train.csv", Half::HeldOut),
    ("real/vit_train.csv", Half::HeldOut),
    ("real/dynamic_serve.csv", Half::HeldOut),
];

/// The corpus traces of one half, read.
pub fn corpus_half(half: Half) -> Vec<Trace> {
    CORPUS
        .iter()
        .filter(|(_, h)| *h == half)
        .map(|(n, _)| shipped_any(n))
        .collect()
}
