//! The transfers suite: bytes across a named boundary. Host to device and device to host
//! from pinned and from pageable host memory, and device to device from each GPU to the
//! next one (peer access when the pair has it, otherwise the driver stages the copy through
//! the host), each from 4 KiB to 1 GiB in steps of 4x. Pure: the case list; [`run`] times
//! them on a GPU.
//!
//! A transfer record's `gbps` is the bytes that crossed the boundary per second (one
//! direction, as nvbandwidth counts), `bytes_read` = `bytes_written` = the bytes copied;
//! `pct_of_memcpy` and `pct_of_peak` are null (the DRAM figures do not apply).

pub mod run;

use serde::Serialize;

use super::cases::{CasePattern, QUICK_FACTOR};
use super::error::BenchError;

/// The host side of a host transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostMemory {
    /// Page-locked (cuMemHostAlloc): DMA straight from or into it.
    Pinned,
    /// Ordinary memory: the driver copies through its own pinned staging buffers.
    Pageable,
}

/// Which boundary a transfer crosses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "direction", rename_all = "snake_case")]
pub enum Direction {
    HostToDevice {
        host: HostMemory,
    },
    DeviceToHost {
        host: HostMemory,
    },
    /// From this GPU to the next one of the run (cuda:i to cuda:(i+1) mod n).
    DeviceToNextDevice,
}

/// One transfer case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transfer {
    /// `h2d_pinned_1GiB`, `d2h_pageable_4KiB`, `d2d_next_64MiB`.
    pub case: String,
    #[serde(flatten)]
    pub direction: Direction,
    pub bytes: u64,
}

/// The smallest and largest transfer.
pub const MIN_BYTES: u64 = 4 << 10;
pub const MAX_BYTES: u64 = 1 << 30;

/// `4KiB`, `16MiB`, `1GiB`.
pub fn size_name(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

/// 4 KiB, 16 KiB, ... 1 GiB (with `quick`, up to 1 GiB / 256 = 4 MiB).
pub fn sizes(quick: bool) -> Vec<u64> {
    let max = if quick {
        MAX_BYTES / QUICK_FACTOR as u64
    } else {
        MAX_BYTES
    };
    std::iter::successors(Some(MIN_BYTES), |b| Some(b * 4))
        .take_while(|b| *b <= max)
        .collect()
}

impl Direction {
    fn prefix(self) -> &'static str {
        match self {
            Direction::HostToDevice {
                host: HostMemory::Pinned,
            } => "h2d_pinned",
            Direction::HostToDevice {
                host: HostMemory::Pageable,
            } => "h2d_pageable",
            Direction::DeviceToHost {
                host: HostMemory::Pinned,
            } => "d2h_pinned",
            Direction::DeviceToHost {
                host: HostMemory::Pageable,
            } => "d2h_pageable",
            Direction::DeviceToNextDevice => "d2d_next",
        }
    }
}

/// The suite, in run order: each direction over every size.
pub fn suite(quick: bool) -> Vec<Transfer> {
    use Direction::*;
    use HostMemory::*;
    let dirs = [
        HostToDevice { host: Pinned },
        DeviceToHost { host: Pinned },
        HostToDevice { host: Pageable },
        DeviceToHost { host: Pageable },
        DeviceToNextDevice,
    ];
    let sizes = sizes(quick);
    dirs.iter()
        .flat_map(|d| {
            sizes.iter().map(move |&bytes| Transfer {
                case: format!("{}_{}", d.prefix(), size_name(bytes)),
                direction: *d,
                bytes,
            })
        })
        .collect()
}

/// The cases matching `--cases` (all without it); none matching is an error only when
/// `required` (the transfers suite runs alone).
pub fn filter(
    cases: Vec<Transfer>,
    pattern: Option<&str>,
    required: bool,
) -> Result<Vec<Transfer>, BenchError> {
    let Some(pat) = pattern else {
        return Ok(cases);
    };
    let p = CasePattern::new(pat);
    let kept: Vec<Transfer> = cases.into_iter().filter(|c| p.matches(&c.case)).collect();
    if kept.is_empty() && required {
        return Err(BenchError::Usage(format!(
            "--cases '{pat}' matches no transfer case (see `stridekit bench --suite transfers --list`)"
        )));
    }
    Ok(kept)
}

/// Whether a case copies to the next GPU (and so needs two).
pub fn is_d2d(t: &Transfer) -> bool {
    t.direction == Direction::DeviceToNextDevice
}

impl Transfer {
    /// The driver call, in words (the record's `op`).
    pub fn expression(&self) -> String {
        match self.direction {
            Direction::HostToDevice { host } => {
                format!("cuMemcpyHtoDAsync from {} host memory", host_name(host))
            }
            Direction::DeviceToHost { host } => {
                format!("cuMemcpyDtoHAsync into {} host memory", host_name(host))
            }
            Direction::DeviceToNextDevice => "cuMemcpyPeerAsync to the next GPU".into(),
        }
    }
}

fn host_name(h: HostMemory) -> &'static str {
    match h {
        HostMemory::Pinned => "pinned",
        HostMemory::Pageable => "pageable",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names() {
        let s = sizes(false);
        assert_eq!(s.len(), 10);
        assert_eq!((s[0], s[9]), (4096, 1 << 30));
        assert_eq!(sizes(true).last(), Some(&(4 << 20)));
        assert_eq!(size_name(4096), "4KiB");
        assert_eq!(size_name(64 << 20), "64MiB");
        assert_eq!(size_name(1 << 30), "1GiB");
        assert_eq!(size_name(1000), "1000B");
        let all = suite(false);
        assert_eq!(all.len(), 50);
        assert_eq!(all[0].case, "h2d_pinned_4KiB");
        assert_eq!(all[9].case, "h2d_pinned_1GiB");
        assert_eq!(all[49].case, "d2d_next_1GiB");
        assert_eq!(
            all[25].expression(),
            "cuMemcpyHtoDAsync from pageable host memory"
        );
        let names: std::collections::BTreeSet<&str> = all.iter().map(|c| c.case.as_str()).collect();
        assert_eq!(names.len(), 50, "distinct names");
    }

    #[test]
    fn filtering() {
        let f = filter(suite(true), Some("^h2d_pinned"), true).unwrap();
        assert_eq!(f.len(), 6);
        assert!(
            filter(suite(true), Some("transpose"), false)
                .unwrap()
                .is_empty()
        );
        let e = filter(suite(true), Some("transpose"), true).unwrap_err();
        assert!(e.to_string().contains("matches no transfer case"), "{e}");
    }
}
