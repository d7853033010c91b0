//! What a run does with each case as it ends, for runs that may be cut short: every record
//! is appended to a JSON-lines file the moment it is measured (`--records`), so a command
//! killed at its time limit keeps what finished; and a time budget (`--budget`) stops
//! starting cases that would not end inside it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::cases::MEMCPY_CASE;
use super::error::BenchError;
use super::record::{self, Record};

/// The records file, and each device's memcpy GB/s once its 100% line has run.
struct Stream {
    path: PathBuf,
    file: File,
    memcpy: BTreeMap<Option<usize>, f64>,
}

/// Shared by every device of a run.
pub struct Sink {
    records: Option<Mutex<Stream>>,
    budget: Option<Duration>,
    start: Instant,
}

impl Sink {
    /// `records`: the JSON-lines file (created or truncated now, so an unwritable path fails
    /// before any case runs); `budget`: the run's time budget from now.
    pub fn new(records: Option<&Path>, budget: Option<Duration>) -> Result<Sink, BenchError> {
        let records = match records {
            Some(p) => Some(Mutex::new(Stream {
                path: p.to_path_buf(),
                file: File::create(p).map_err(|e| BenchError::io(p, e))?,
                memcpy: BTreeMap::new(),
            })),
            None => None,
        };
        Ok(Sink {
            records,
            budget,
            start: Instant::now(),
        })
    }

    /// Appends one record as one line, with its rates (as the final report has them:
    /// `peak_gbps` is its device's), and flushes it to the file.
    pub fn write(&self, r: &Record, peak_gbps: Option<f64>) -> Result<(), BenchError> {
        if let Some(m) = &self.records {
            let mut g = m.lock();
            let Stream { path, file, memcpy } = &mut *g;
            let mut r = r.clone();
            if r.case == MEMCPY_CASE
                && let Some(m) = record::record_gbps(&r)
            {
                memcpy.insert(r.place.gpu_index, m);
            }
            let m = memcpy.get(&r.place.gpu_index).copied();
            record::fill_rates(&mut r, m, peak_gbps);
            let line = serde_json::to_string(&r).expect("plain data always encodes") + "\n";
            file.write_all(line.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|e| BenchError::io(path, e))?;
        }
        Ok(())
    }

    /// Whether a case expected to take `longest` (the longest case so far on its device;
    /// None before its first) still ends inside the budget.
    pub fn may_start(&self, longest: Option<Duration>) -> bool {
        fits(self.budget, self.start.elapsed(), longest)
    }
}

/// The budget rule: start when no budget is set, when no case has run yet on the device (a
/// run always measures something), or when what has elapsed plus the longest case so far
/// is inside the budget.
pub fn fits(budget: Option<Duration>, elapsed: Duration, longest: Option<Duration>) -> bool {
    match (budget, longest) {
        (Some(b), Some(l)) => elapsed + l <= b,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::tests::record;

    #[test]
    fn budget_rule() {
        let s = Duration::from_secs;
        assert!(fits(None, s(1000), Some(s(1000))));
        assert!(fits(Some(s(0)), s(5), None), "the first case starts");
        assert!(fits(Some(s(10)), s(6), Some(s(4))));
        assert!(!fits(Some(s(10)), s(7), Some(s(4))));
    }

    #[test]
    fn records_are_lines_written_at_once() {
        let dir = std::env::temp_dir().join(format!("sk-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("r.jsonl");
        let sink = Sink::new(Some(&p), None).unwrap();
        let memcpy = record(MEMCPY_CASE, Some(2.0), Some(0));
        sink.write(&memcpy, Some(10.0)).unwrap();
        // Visible before the sink is dropped: a killed run keeps it.
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 1);
        let back: Record = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(back.pct_of_memcpy, Some(100.0));
        // Rates as the final report derives them: against the device's memcpy and peak.
        let r = record("a", Some(4.0), Some(0));
        sink.write(&r, Some(10.0)).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<Record> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut want = vec![memcpy, r];
        record::derive_rates(&mut want, |_| Some(10.0));
        assert_eq!(lines, want);
        let bad = Sink::new(Some(&dir.join("no/such/dir/r.jsonl")), None);
        assert!(bad.err().unwrap().to_string().contains("no/such/dir"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
