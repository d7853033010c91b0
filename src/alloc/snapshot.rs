//! PyTorch memory snapshots (`torch.cuda.memory._snapshot()`, written by
//! `_dump_snapshot()`), read and written with serde-pickle: `segments` with their blocks
//! and states, `device_traces` with their actions, `allocator_settings`.
//!
//! Only the fields stridekit and `torch.cuda._memory_viz` use are typed; any other field
//! of a snapshot is ignored when reading. Frames are written empty (a replay has no
//! Python stack).

use serde::{Deserialize, Serialize};

use super::block::{NIL, PoolKind};
use super::device::RawDevice;
use super::error::{AllocError, AllocResult};
use super::state::{Action, DeviceCachingAllocator};

/// A stack frame of a snapshot (never filled by stridekit).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    #[serde(default)]
    pub filename: String,
    #[serde(default)]
    pub line: i64,
    #[serde(default)]
    pub name: String,
}

/// A block of a segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotBlock {
    #[serde(default)]
    pub address: u64,
    pub size: u64,
    #[serde(default)]
    pub requested_size: u64,
    /// `active_allocated`, `active_pending_free` or `inactive`.
    pub state: String,
    #[serde(default)]
    pub frames: Vec<Frame>,
}

/// A segment (for expandable segments: a mapped range).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotSegment {
    #[serde(default)]
    pub device: i64,
    pub address: u64,
    pub total_size: u64,
    #[serde(default)]
    pub allocated_size: u64,
    #[serde(default)]
    pub active_size: u64,
    #[serde(default)]
    pub requested_size: u64,
    #[serde(default)]
    pub stream: u64,
    /// `small` or `large`.
    #[serde(default)]
    pub segment_type: String,
    #[serde(default)]
    pub segment_pool_id: (i64, i64),
    #[serde(default)]
    pub is_expandable: bool,
    #[serde(default)]
    pub frames: Vec<Frame>,
    #[serde(default)]
    pub blocks: Vec<SnapshotBlock>,
}

/// An entry of `device_traces`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotEntry {
    pub action: String,
    #[serde(default)]
    pub addr: u64,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub stream: u64,
    #[serde(default)]
    pub time_us: i64,
    #[serde(default)]
    pub frames: Vec<Frame>,
    /// Free device memory, on `oom` entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_free: Option<u64>,
}

/// The settings a snapshot was taken under.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AllocatorSettings {
    #[serde(default, rename = "PYTORCH_CUDA_ALLOC_CONF")]
    pub pytorch_cuda_alloc_conf: Option<String>,
    #[serde(default)]
    pub max_split_size: Option<i64>,
    #[serde(default)]
    pub garbage_collection_threshold: Option<f64>,
    #[serde(default)]
    pub expandable_segments: Option<bool>,
}

/// A snapshot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    #[serde(default)]
    pub segments: Vec<SnapshotSegment>,
    #[serde(default)]
    pub device_traces: Vec<Vec<SnapshotEntry>>,
    #[serde(default)]
    pub allocator_settings: AllocatorSettings,
}

/// Decode a snapshot pickle; `file` names it in errors.
pub fn from_pickle(file: &str, data: &[u8]) -> AllocResult<Snapshot> {
    serde_pickle::from_slice(data, serde_pickle::DeOptions::new()).map_err(|e| AllocError::Trace {
        file: file.to_string(),
        line: 0,
        field: None,
        message: format!("not a memory snapshot pickle: {e}"),
    })
}

/// Encode a snapshot as a pickle (protocol 3).
pub fn to_pickle(s: &Snapshot) -> AllocResult<Vec<u8>> {
    serde_pickle::to_vec(s, serde_pickle::SerOptions::new())
        .map_err(|e| AllocError::Usage(format!("pickle: {e}")))
}

/// The allocator's segments (for expandable segments: each mapped range) with their
/// blocks and states, sorted by address.
pub fn segments<D: RawDevice>(a: &DeviceCachingAllocator<D>) -> Vec<SnapshotSegment> {
    let mut segments = Vec::new();
    for head in a.segment_heads() {
        let h = &a.blocks[head as usize];
        let mut seg = SnapshotSegment {
            device: 0,
            address: h.ptr,
            total_size: 0,
            allocated_size: 0,
            active_size: 0,
            requested_size: 0,
            stream: h.stream,
            segment_type: if h.pool == PoolKind::Small {
                "small"
            } else {
                "large"
            }
            .to_string(),
            segment_pool_id: (0, 0),
            is_expandable: h.seg != NIL,
            frames: Vec::new(),
            blocks: Vec::new(),
        };
        let mut i = head;
        while i != NIL && a.blocks[i as usize].mapped {
            let b = &a.blocks[i as usize];
            let active = b.allocated || b.event_count > 0 || !b.stream_uses.is_empty();
            let state = if b.allocated {
                "active_allocated"
            } else if active {
                "active_pending_free"
            } else {
                "inactive"
            };
            seg.total_size += b.size;
            if b.allocated {
                seg.allocated_size += b.size;
            }
            if active {
                seg.active_size += b.size;
                seg.requested_size += b.requested;
            }
            seg.blocks.push(SnapshotBlock {
                address: b.ptr,
                size: b.size,
                requested_size: if active { b.requested } else { 0 },
                state: state.to_string(),
                frames: Vec::new(),
            });
            i = b.next;
        }
        segments.push(seg);
    }
    segments
}

/// The allocator's state (segments with their blocks) and its recorded history, as a
/// snapshot. Entries are timed by their position in the history (`time_us` = index).
pub fn from_allocator<D: RawDevice>(a: &DeviceCachingAllocator<D>) -> Snapshot {
    let segments = segments(a);
    let entries = a
        .history()
        .iter()
        .enumerate()
        .map(|(k, e)| SnapshotEntry {
            action: e.action.name().to_string(),
            addr: e.addr,
            size: e.size,
            stream: e.stream,
            time_us: k as i64,
            frames: Vec::new(),
            device_free: (e.action == Action::Oom).then_some(e.addr),
        })
        .collect();
    let cfg = a.config();
    Snapshot {
        segments,
        device_traces: vec![entries],
        allocator_settings: AllocatorSettings {
            pytorch_cuda_alloc_conf: Some(cfg.source.clone()),
            max_split_size: Some(a.stats().max_split_size),
            garbage_collection_threshold: Some(cfg.garbage_collection_threshold),
            expandable_segments: Some(cfg.expandable_segments),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{AllocConfig, SimulatedDevice};

    #[test]
    fn state_and_history_roundtrip_through_pickle() {
        let mut a = DeviceCachingAllocator::new(
            SimulatedDevice::new(1 << 30),
            AllocConfig::parse("expandable_segments:True").unwrap(),
        )
        .unwrap();
        a.record_history(true);
        let x = a.malloc(30 << 20, 0).unwrap();
        let y = a.malloc(1000, 0).unwrap();
        a.free(x).unwrap();
        let s = from_allocator(&a);
        let actions: Vec<&str> = s.device_traces[0]
            .iter()
            .map(|e| e.action.as_str())
            .collect();
        assert_eq!(
            actions,
            [
                "segment_map",
                "alloc",
                "segment_map",
                "alloc",
                "free_requested",
                "free_completed"
            ]
        );
        assert_eq!(s.device_traces[0][1].size, 30 << 20);
        let total: u64 = s.segments.iter().map(|g| g.total_size).sum();
        assert_eq!(total as i64, a.stats().reserved_bytes[0].current);
        let live: Vec<&SnapshotBlock> = s
            .segments
            .iter()
            .flat_map(|g| &g.blocks)
            .filter(|b| b.state == "active_allocated")
            .collect();
        assert_eq!(live.len(), 1);
        assert_eq!((live[0].address, live[0].requested_size), (y.ptr, 1000));
        let back = from_pickle("t", &to_pickle(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(from_pickle("t", b"\x80\x03K\x05.").is_err());
    }
}
