//! Every decision of a replay stays the same through changes to the allocator's data
//! structures (issue 22 item 4: the replay path made allocation-free and faster "without
//! changing a single decision"). Each trace of the corpus, and each of PyTorch's recorded
//! histories of the shipped traces, replays under a set of settings that exercises every
//! knob of both policies (tuning and held-out traces alike: nothing is fitted here), with
//! the allocator's history recorded. A digest of the history (every alloc, free,
//! segment alloc/free, map/unmap and OOM with its address and size), the device's handed
//! out segment addresses and reservations, the device calls and the statistics JSON is
//! compared with tests/data/alloc/replay_digests.txt, written by the code before the
//! change (`STRIDEKIT_BLESS_DIGESTS=1 cargo test --test alloc_replay_digests` rewrites it;
//! only do that for a change meant to alter decisions, and say so in its commit).

use stridekit::alloc::config::AllocConfig;
use stridekit::alloc::replay::{self, ReplayOptions};
use stridekit::alloc::trace::Trace;

mod alloc_common;
use alloc_common::{CORPUS, RECORDED_SETTINGS, SHIPPED, data, shipped_any};

/// The settings every corpus trace replays under: PyTorch's defaults, each knob of the
/// default grid on its own and in the combinations that change its code paths, and
/// policy:stridekit with its defaults and at the corners of its parameter grid.
const SETTINGS: [&str; 14] = [
    "default",
    "expandable_segments:True",
    "max_split_size_mb:128",
    "roundup_power2_divisions:4",
    "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
    "garbage_collection_threshold:0.6,per_process_memory_fraction:1.0",
    "max_split_size_mb:64,max_non_split_rounding_mb:64",
    "expandable_segments:True,max_split_size_mb:256",
    "expandable_segments:True,roundup_power2_divisions:8",
    "max_split_size_mb:512,garbage_collection_threshold:0.8,per_process_memory_fraction:1.0",
    "policy:stridekit",
    "policy:stridekit,stridekit_min_chunk_mb:14,stridekit_max_chunk_mb:32,stridekit_max_moves:8",
    "policy:stridekit,stridekit_min_chunk_mb:20,stridekit_max_chunk_mb:20,stridekit_max_moves:16",
    "policy:stridekit,max_split_size_mb:128,roundup_power2_divisions:4",
];

/// FNV-1a, 64 bits: a digest that does not depend on the platform or the toolchain.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

/// One line of the digest file: the trace, the setting, the replay's digest and, to read
/// a difference at a glance, its history length, peak reserved bytes and OOMs.
fn digest_line(name: &str, t: &Trace, setting: &str, opts: &ReplayOptions) -> String {
    let cfg = AllocConfig::parse(setting).unwrap();
    let (a, r) = replay::replay_simulated_state(t, &cfg, opts)
        .unwrap_or_else(|e| panic!("{name} under {setting}: {e}"));
    let mut h = Fnv::new();
    for e in a.history() {
        h.bytes(e.action.name().as_bytes());
        h.u64(e.addr);
        h.u64(e.size);
        h.u64(e.stream);
    }
    h.u64(u64::MAX);
    for &p in &r.segment_addresses {
        h.u64(p);
    }
    h.u64(u64::MAX);
    for &p in &a.device().reservations_handed_out {
        h.u64(p);
    }
    h.bytes(serde_json::to_string(&r.device_calls).unwrap().as_bytes());
    h.bytes(r.stats.to_json().to_string().as_bytes());
    h.u64(r.failed_allocs as u64);
    h.u64(r.peak_reserved_at as u64);
    format!(
        "{name}\t{setting}\t{:016x}\t{} entries\tpeak reserved {}\t{} failed",
        h.0,
        a.history().len(),
        r.peak_reserved(),
        r.failed_allocs
    )
}

/// Every line, in a fixed order: the corpus under [`SETTINGS`], then the recorded
/// PyTorch histories of the shipped traces under the setting each was recorded with.
fn all_lines() -> Vec<String> {
    let opts = ReplayOptions {
        record_history: true,
        ..ReplayOptions::default()
    };
    let mut out = Vec::new();
    for (name, _) in CORPUS {
        let t = shipped_any(name);
        for s in SETTINGS {
            out.push(digest_line(name, &t, s, &opts));
        }
    }
    for shipped in SHIPPED {
        for s in RECORDED_SETTINGS {
            let name = format!(
                "{}__{}.csv",
                shipped.trim_end_matches(".csv"),
                s.replace(':', "-")
            );
            let t = shipped_any(&name);
            out.push(digest_line(&name, &t, s, &opts));
        }
    }
    out
}

#[test]
fn replays_decide_exactly_as_recorded() {
    let path = data("replay_digests.txt");
    let lines = all_lines();
    if std::env::var_os("STRIDEKIT_BLESS_DIGESTS").is_some() {
        let mut text = String::from(
            "# Replay digests (tests/alloc_replay_digests.rs): trace, setting, FNV-1a of the\n\
             # allocator's history, segment addresses, reservations, device calls and statistics.\n",
        );
        for l in &lines {
            text.push_str(l);
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let want: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        want.len(),
        lines.len(),
        "the digest file lists other replays"
    );
    let differ: Vec<String> = want
        .iter()
        .zip(&lines)
        .filter(|(w, g)| *w != g)
        .map(|(w, g)| format!("  want {w}\n  got  {g}"))
        .collect();
    assert!(
        differ.is_empty(),
        "{} of {} replays decide differently:\n{}",
        differ.len(),
        lines.len(),
        differ.join("\n")
    );
}

/// The digest sees a change of one decision: the same trace under two settings that
/// differ only in one rounding digests differently, and the same replay twice alike.
#[test]
fn the_digest_sees_one_changed_decision() {
    let t = shipped_any("trace_random.csv");
    let opts = ReplayOptions {
        record_history: true,
        ..ReplayOptions::default()
    };
    let field = |l: String| l.split('\t').nth(2).unwrap().to_string();
    let a = field(digest_line("t", &t, "default", &opts));
    let b = field(digest_line("t", &t, "default", &opts));
    let c = field(digest_line("t", &t, "roundup_power2_divisions:2", &opts));
    assert_eq!(a, b);
    assert_ne!(a, c);
}
