//! Trace readers. Four formats, detected by content (gzip is unpacked first):
//!
//! 1. stridekit's anchors CSV: `a,ID,BYTES[,STREAM]` allocates, `f,ID,0` frees;
//! 2. a PyTorch memory snapshot's `device_traces` flattened to CSV:
//!    `action,addr,size,stream,time_us` (alloc / free_requested / free_completed /
//!    segment_alloc / segment_free / segment_map / segment_unmap / oom / snapshot / ...);
//! 3. the snapshot pickle itself (`torch.cuda.memory._dump_snapshot()`), of which only
//!    `device_traces` entries' action, addr, size and stream are read;
//! 4. RMM's `logging_resource_adaptor` CSV: `Thread,Time,Action,Pointer,Size,Stream`.
//!
//! Every trace becomes a list of [`Op`]s over dense allocation slots, so a replay needs no
//! hashing. Frees in snapshots and RMM logs are keyed by address.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use super::error::{AllocError, AllocResult};
use super::snapshot;

/// One replayable event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Allocate `size` bytes on `stream` into `slot`.
    Alloc { slot: u32, size: u64, stream: u64 },
    /// Free the allocation in `slot`.
    Free { slot: u32 },
    /// The original run returned segment memory at `addr` to the device outside an
    /// allocation (an explicit `empty_cache()`); the replay empties its cache if it still
    /// holds that memory.
    SegmentRelease { addr: u64 },
}

/// The formats [`read_trace`] understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    AnchorsCsv,
    SnapshotCsv,
    SnapshotPickle,
    RmmCsv,
}

/// A trace ready for replay.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub name: String,
    pub format: Option<TraceFormat>,
    pub ops: Vec<Op>,
    /// Number of distinct allocation slots.
    pub slots: u32,
    /// Addresses of the original run's `segment_alloc` entries, in order.
    pub segment_addrs: Vec<u64>,
    /// (address, size) of the original run's `segment_map` entries, in order.
    pub segment_maps: Vec<(u64, u64)>,
    /// Leading ops that form the warm-up (a 4-byte allocation and its free, after which
    /// the recording process reset its peak statistics).
    pub warmup_ops: usize,
    /// Frees of addresses with no live allocation in the trace (history cut by the
    /// snapshot's ring buffer); skipped.
    pub skipped_frees: usize,
    /// Lines or entries read.
    pub entries: usize,
}

impl Trace {
    fn detect_warmup(&mut self) {
        if let [Op::Alloc { slot, size: 4, .. }, Op::Free { slot: s2 }, ..] = self.ops[..]
            && slot == s2
        {
            self.warmup_ops = 2;
        }
    }
}

fn terr(file: &str, line: usize, field: Option<&str>, message: impl Into<String>) -> AllocError {
    AllocError::Trace {
        file: file.to_string(),
        line,
        field: field.map(|s| s.to_string()),
        message: message.into(),
    }
}

/// Read and parse a trace file of any supported format.
pub fn read_trace(path: &Path) -> AllocResult<Trace> {
    let raw = std::fs::read(path).map_err(|e| AllocError::io(path.display(), e))?;
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut t = parse_trace_bytes(&name, &raw)?;
    t.name = name
        .trim_end_matches(".gz")
        .trim_end_matches(".csv")
        .trim_end_matches(".pickle")
        .trim_end_matches(".pkl")
        .to_string();
    Ok(t)
}

/// The bytes of a gzip stream decompressed, or plain bytes as they are.
fn gunzip_if_compressed<'a>(file: &str, raw: &'a [u8]) -> AllocResult<std::borrow::Cow<'a, [u8]>> {
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Ok(raw.into());
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(raw)
        .read_to_end(&mut out)
        .map_err(|e| AllocError::io(file, format!("gzip: {e}")))?;
    Ok(out.into())
}

/// Parse a trace held in memory (gzip or plain); `file` names it in errors.
pub fn parse_trace_bytes(file: &str, raw: &[u8]) -> AllocResult<Trace> {
    let data = gunzip_if_compressed(file, raw)?;
    if data.first() == Some(&0x80) {
        return parse_pickle(file, &data);
    }
    let text = std::str::from_utf8(&data).map_err(|e| {
        terr(
            file,
            0,
            None,
            format!("not UTF-8 text and not a pickle: {e}"),
        )
    })?;
    // `#` comment lines (the anchors CSV allows them) do not decide the format.
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    let lower = first.to_ascii_lowercase();
    if lower.starts_with("action,") {
        parse_snapshot_csv(file, text)
    } else if lower.contains("thread") && lower.contains("action") && lower.contains("pointer") {
        parse_rmm_csv(file, text)
    } else if first.starts_with("a,") || first.starts_with("f,") || first.is_empty() {
        parse_anchors_csv(file, text)
    } else {
        Err(terr(
            file,
            1,
            None,
            "unknown trace format (expected anchors CSV, snapshot CSV, snapshot pickle or RMM CSV)",
        ))
    }
}

fn parse_u64(file: &str, line: usize, field: &str, s: &str) -> AllocResult<u64> {
    let s = s.trim();
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        s.parse::<u64>()
    };
    r.map_err(|_| {
        terr(
            file,
            line,
            Some(field),
            format!("'{s}' is not a non-negative integer"),
        )
    })
}

/// The non-blank lines of a CSV text (and not `#` comments, when `comments`), each as its
/// 1-based line number and its trimmed comma-separated fields.
fn csv_rows(text: &str, comments: bool) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(move |(k, line)| {
        let line = line.trim();
        if line.is_empty() || (comments && line.starts_with('#')) {
            return None;
        }
        Some((k + 1, line.split(',').map(|s| s.trim()).collect()))
    })
}

/// stridekit's anchors CSV: `a,ID,BYTES[,STREAM]` / `f,ID,0`.
pub fn parse_anchors_csv(file: &str, text: &str) -> AllocResult<Trace> {
    let mut t = Trace {
        format: Some(TraceFormat::AnchorsCsv),
        ..Trace::default()
    };
    let mut live: HashMap<&str, u32> = HashMap::new();
    let mut free_slots: Vec<u32> = Vec::new();
    for (ln, f) in csv_rows(text, true) {
        t.entries += 1;
        match f[0] {
            "a" => {
                if f.len() < 3 || f.len() > 4 {
                    return Err(terr(file, ln, None, "expected a,ID,BYTES[,STREAM]"));
                }
                let size = parse_u64(file, ln, "BYTES", f[2])?;
                let stream = if f.len() == 4 {
                    parse_u64(file, ln, "STREAM", f[3])?
                } else {
                    0
                };
                if live.contains_key(f[1]) {
                    return Err(terr(
                        file,
                        ln,
                        Some("ID"),
                        format!("id {} is already allocated", f[1]),
                    ));
                }
                let slot = free_slots.pop().unwrap_or_else(|| {
                    t.slots += 1;
                    t.slots - 1
                });
                live.insert(f[1], slot);
                t.ops.push(Op::Alloc { slot, size, stream });
            }
            "f" => {
                if f.len() < 2 || f.len() > 4 {
                    return Err(terr(file, ln, None, "expected f,ID,0"));
                }
                match live.remove(f[1]) {
                    Some(slot) => {
                        free_slots.push(slot);
                        t.ops.push(Op::Free { slot });
                    }
                    None => {
                        return Err(terr(
                            file,
                            ln,
                            Some("ID"),
                            format!("id {} is not allocated", f[1]),
                        ));
                    }
                }
            }
            other => {
                return Err(terr(
                    file,
                    ln,
                    Some("action"),
                    format!("unknown action '{other}' (expected a or f)"),
                ));
            }
        }
    }
    Ok(t)
}

/// Builds a trace from snapshot entries (action, addr, size, stream), keyed by address.
struct SnapshotBuilder {
    t: Trace,
    live: HashMap<u64, u32>,
    free_slots: Vec<u32>,
}

impl SnapshotBuilder {
    fn new(format: TraceFormat) -> Self {
        SnapshotBuilder {
            t: Trace {
                format: Some(format),
                ..Trace::default()
            },
            live: HashMap::new(),
            free_slots: Vec::new(),
        }
    }

    fn entry(
        &mut self,
        file: &str,
        ln: usize,
        action: &str,
        addr: u64,
        size: u64,
        stream: u64,
    ) -> AllocResult<()> {
        self.t.entries += 1;
        match action {
            "alloc" => {
                if self.live.contains_key(&addr) {
                    return Err(terr(
                        file,
                        ln,
                        Some("addr"),
                        format!("address {addr:#x} allocated twice without a free"),
                    ));
                }
                let slot = self.free_slots.pop().unwrap_or_else(|| {
                    self.t.slots += 1;
                    self.t.slots - 1
                });
                self.live.insert(addr, slot);
                self.t.ops.push(Op::Alloc { slot, size, stream });
            }
            "free_requested" => match self.live.remove(&addr) {
                Some(slot) => {
                    self.free_slots.push(slot);
                    self.t.ops.push(Op::Free { slot });
                }
                None => self.t.skipped_frees += 1,
            },
            "segment_alloc" => self.t.segment_addrs.push(addr),
            "segment_map" => self.t.segment_maps.push((addr, size)),
            "segment_free" | "segment_unmap" => self.t.ops.push(Op::SegmentRelease { addr }),
            "free_completed" | "free" | "oom" | "snapshot" | "user_defined" => {}
            other => {
                return Err(terr(
                    file,
                    ln,
                    Some("action"),
                    format!("unknown action '{other}'"),
                ));
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Trace {
        self.t.detect_warmup();
        self.t
    }
}

/// Snapshot entries flattened to CSV: `action,addr,size,stream,time_us`.
pub fn parse_snapshot_csv(file: &str, text: &str) -> AllocResult<Trace> {
    let mut b = SnapshotBuilder::new(TraceFormat::SnapshotCsv);
    let mut cols = [0usize, 1, 2, 3];
    for (ln, f) in csv_rows(text, false) {
        if f[0].eq_ignore_ascii_case("action") {
            for (c, name) in ["action", "addr", "size", "stream"].iter().enumerate() {
                cols[c] = f
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(name))
                    .ok_or_else(|| terr(file, ln, Some(name), "missing column in header"))?;
            }
            continue;
        }
        let get = |c: usize, name: &str| {
            f.get(cols[c])
                .copied()
                .ok_or_else(|| terr(file, ln, Some(name), "missing field"))
        };
        let action = get(0, "action")?;
        let addr = parse_u64(file, ln, "addr", get(1, "addr")?)?;
        let size = parse_u64(file, ln, "size", get(2, "size")?)?;
        let stream = parse_u64(file, ln, "stream", get(3, "stream")?)?;
        b.entry(file, ln, action, addr, size, stream)?;
    }
    Ok(b.finish())
}

/// A PyTorch memory snapshot pickle. Entries of the first device with any trace are read;
/// "line" numbers in errors are 1-based entry numbers.
pub fn parse_pickle(file: &str, data: &[u8]) -> AllocResult<Trace> {
    let snap = snapshot::from_pickle(file, data)?;
    let mut b = SnapshotBuilder::new(TraceFormat::SnapshotPickle);
    let Some(entries) = snap.device_traces.iter().find(|d| !d.is_empty()) else {
        return Ok(b.finish());
    };
    for (k, e) in entries.iter().enumerate() {
        b.entry(file, k + 1, &e.action, e.addr, e.size, e.stream)?;
    }
    Ok(b.finish())
}

/// RMM `logging_resource_adaptor` CSV: `Thread,Time,Action,Pointer,Size,Stream`.
pub fn parse_rmm_csv(file: &str, text: &str) -> AllocResult<Trace> {
    let mut b = SnapshotBuilder::new(TraceFormat::RmmCsv);
    let mut cols: Option<[usize; 4]> = None;
    for (ln, f) in csv_rows(text, false) {
        let Some(c) = cols else {
            let mut c = [0usize; 4];
            for (n, name) in ["action", "pointer", "size", "stream"].iter().enumerate() {
                c[n] = f
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(name))
                    .ok_or_else(|| terr(file, ln, Some(name), "missing column in RMM header"))?;
            }
            cols = Some(c);
            continue;
        };
        let get = |n: usize, name: &str| {
            f.get(c[n])
                .copied()
                .ok_or_else(|| terr(file, ln, Some(name), "missing field"))
        };
        let action = get(0, "Action")?.to_ascii_lowercase();
        let ptr = parse_u64(file, ln, "Pointer", get(1, "Pointer")?)?;
        let size = parse_u64(file, ln, "Size", get(2, "Size")?)?;
        let stream = parse_u64(file, ln, "Stream", get(3, "Stream")?)?;
        let mapped = match action.as_str() {
            "allocate" => "alloc",
            "free" => "free_requested",
            "allocate failure" | "free failure" => {
                b.t.entries += 1;
                continue;
            }
            other => {
                return Err(terr(
                    file,
                    ln,
                    Some("Action"),
                    format!("unknown RMM action '{other}'"),
                ));
            }
        };
        b.entry(file, ln, mapped, ptr, size, stream)?;
    }
    b.t.detect_warmup();
    b.t.warmup_ops = 0;
    Ok(b.t)
}

/// Rebuild a snapshot pickle, shaped like `_dump_snapshot()`'s, from a flattened snapshot
/// CSV (`action,addr,size,stream,time_us`), as `to_pickle.py` does.
pub fn snapshot_csv_to_pickle(file: &str, raw: &[u8]) -> AllocResult<Vec<u8>> {
    let data = gunzip_if_compressed(file, raw)?;
    let text = std::str::from_utf8(&data).map_err(|e| terr(file, 0, None, e.to_string()))?;
    let mut entries = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.trim().split(',').collect();
        if f.len() != 5 {
            return Err(terr(
                file,
                k + 1,
                None,
                "expected action,addr,size,stream,time_us",
            ));
        }
        let int = |i: usize, n: &str| parse_u64(file, k + 1, n, f[i]);
        entries.push(snapshot::SnapshotEntry {
            action: f[0].to_string(),
            addr: int(1, "addr")?,
            size: int(2, "size")?,
            stream: int(3, "stream")?,
            time_us: int(4, "time_us")? as i64,
            frames: Vec::new(),
            device_free: None,
        });
    }
    snapshot::to_pickle(&snapshot::Snapshot {
        segments: Vec::new(),
        device_traces: vec![entries],
        allocator_settings: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors() {
        let t = parse_anchors_csv("t", "a,0,100\na,x,5,7\nf,0,0\nf,x,0\n").unwrap();
        assert_eq!(t.ops.len(), 4);
        assert_eq!(
            t.ops[1],
            Op::Alloc {
                slot: 1,
                size: 5,
                stream: 7
            }
        );
        let e = parse_anchors_csv("t", "a,0,100\nf,1,0\n").unwrap_err();
        assert!(matches!(e, AllocError::Trace { line: 2, .. }), "{e}");
        let e = parse_anchors_csv("t", "a,0,1x0\n").unwrap_err();
        assert!(
            matches!(&e, AllocError::Trace { line: 1, field: Some(f), .. } if f == "BYTES"),
            "{e}"
        );
        let e = parse_anchors_csv("t", "a,0,1\nz,0,1\n").unwrap_err();
        assert!(matches!(e, AllocError::Trace { line: 2, .. }));
        // A leading comment does not hide the format; errors keep the file's line numbers.
        let t =
            parse_trace_bytes("t", b"# recorded by ...\n# 1 allocation\na,0,8\nf,0,0\n").unwrap();
        assert_eq!(t.format, Some(TraceFormat::AnchorsCsv));
        assert_eq!(t.ops.len(), 2);
        let e = parse_trace_bytes("t", b"# header\na,0,8\nf,1,0\n").unwrap_err();
        assert!(matches!(e, AllocError::Trace { line: 3, .. }), "{e}");
    }

    #[test]
    fn snapshot_csv() {
        let s = "action,addr,size,stream,time_us\nsegment_alloc,4096,2097152,0,1\nalloc,4096,4,0,2\nfree_requested,4096,4,0,3\nfree_completed,4096,4,0,3\nalloc,4096,1000,0,4\n";
        let t = parse_snapshot_csv("s", s).unwrap();
        assert_eq!(t.segment_addrs, vec![4096]);
        assert_eq!(t.warmup_ops, 2);
        assert_eq!(t.ops.len(), 3);
        let e = parse_snapshot_csv("s", "action,addr,size,stream,time_us\nalloc,zz,1,0,0\n")
            .unwrap_err();
        assert!(
            matches!(&e, AllocError::Trace { line: 2, field: Some(f), .. } if f == "addr"),
            "{e}"
        );
        let e = parse_snapshot_csv("s", "action,addr,size,stream,time_us\nmalloc,1,1,0,0\n")
            .unwrap_err();
        assert!(matches!(e, AllocError::Trace { line: 2, .. }));
    }

    #[test]
    fn rmm_csv() {
        let s = "Thread,Time,Action,Pointer,Size,Stream\n1,0.1,allocate,0x7f0000000000,256,0x0\n1,0.2,free,0x7f0000000000,256,0x0\n";
        let t = parse_trace_bytes("r.csv", s.as_bytes()).unwrap();
        assert_eq!(t.format, Some(TraceFormat::RmmCsv));
        assert_eq!(
            t.ops,
            vec![
                Op::Alloc {
                    slot: 0,
                    size: 256,
                    stream: 0
                },
                Op::Free { slot: 0 }
            ]
        );
        let bad = "Thread,Time,Action,Pointer,Size,Stream\n1,0.1,allocate,0xzz,256,0x0\n";
        let e = parse_trace_bytes("r.csv", bad.as_bytes()).unwrap_err();
        assert!(
            matches!(&e, AllocError::Trace { line: 2, field: Some(f), .. } if f == "Pointer"),
            "{e}"
        );
    }

    #[test]
    fn pickle_roundtrip() {
        let s = "action,addr,size,stream,time_us\nsegment_alloc,4096,2097152,0,1\nalloc,4096,4,0,2\nfree_requested,4096,4,0,3\n";
        let p = snapshot_csv_to_pickle("s", s.as_bytes()).unwrap();
        let t = parse_trace_bytes("p", &p).unwrap();
        assert_eq!(t.format, Some(TraceFormat::SnapshotPickle));
        assert_eq!(t.ops.len(), 2);
        assert_eq!(t.segment_addrs, vec![4096]);
    }
}
