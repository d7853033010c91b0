//! Terminal output: a progress line on stderr while the suite runs (rewritten in place on
//! a terminal, one line per finished case otherwise) and the results table, with the
//! ratio against every baseline series.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::cases::{Case, dims_x};
use super::error::BenchError;
use super::record::{Baseline, Record, ratio};
use super::sink::Sink;

/// Progress of one device's run: the progress line, and the run's [`Sink`] (records
/// streamed as they finish, the time budget).
pub struct Progress<'s> {
    label: String,
    total: usize,
    tty: bool,
    quiet: bool,
    done: AtomicUsize,
    sink: Option<&'s Sink>,
    /// When the current case started, and the longest case so far on this device.
    timing: Mutex<(Option<Instant>, Option<Duration>)>,
    /// The device's theoretical peak, for the streamed records' `pct_of_peak`.
    peak_gbps: Mutex<Option<f64>>,
}

impl<'s> Progress<'s> {
    /// `label` names the device ("cpu", "cuda:0"); `alone`: no other device reports at
    /// the same time (the line is then rewritten in place on a terminal).
    pub fn new(label: &str, total: usize, alone: bool, quiet: bool) -> Progress<'s> {
        Progress {
            label: label.to_string(),
            total,
            tty: alone && std::io::stderr().is_terminal(),
            quiet,
            done: AtomicUsize::new(0),
            sink: None,
            timing: Mutex::new((None, None)),
            peak_gbps: Mutex::new(None),
        }
    }

    /// The device's theoretical peak, once known.
    pub fn set_peak(&self, peak_gbps: Option<f64>) {
        *self.peak_gbps.lock() = peak_gbps;
    }

    /// Streams every finished record into `sink` and keeps to its budget.
    pub fn with_sink(mut self, sink: &'s Sink) -> Progress<'s> {
        self.sink = Some(sink);
        self
    }

    /// Called before each case: false when the run's budget has no room for another case
    /// as long as the longest one so far (the caller then stops; the case is not run).
    pub fn may_start(&self) -> bool {
        let mut t = self.timing.lock();
        let now = Instant::now();
        if let Some(s) = t.0 {
            t.1 = Some(t.1.unwrap_or_default().max(now - s));
        }
        t.0 = Some(now);
        self.sink.is_none_or(|s| s.may_start(t.1))
    }

    fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        let mut e = std::io::stderr().lock();
        if self.tty {
            // \r and clear-to-end-of-line: one line, rewritten.
            let _ = write!(e, "\r\x1b[K{text}");
        } else {
            let _ = writeln!(e, "{text}");
        }
        let _ = e.flush();
    }

    /// Case `k` (0-based) entered a phase ("verifying", "timing"); shown on a terminal only.
    pub fn step(&self, k: usize, case: &str, phase: &str) {
        if self.tty {
            self.line(&format!(
                "[{} {}/{}] {case}: {phase}",
                self.label,
                k + 1,
                self.total
            ));
        }
    }

    /// Case `k` ended with record `r`: the progress line, and the record into the sink.
    pub fn finished(&self, k: usize, r: &Record) -> Result<(), BenchError> {
        self.done.fetch_add(1, Ordering::Relaxed);
        let ms = r.ms_median.map_or("-".into(), |m| format!("{m:.4} ms"));
        let gbps = r.gbps.map_or(String::new(), |g| format!(", {g:.1} GB/s"));
        let ok = if r.verified { "" } else { ", VERIFY FAILED" };
        self.line(&format!(
            "[{} {}/{}] {}: {ms}{gbps}{ok}",
            self.label,
            k + 1,
            self.total,
            r.case
        ));
        self.sink
            .map_or(Ok(()), |s| s.write(r, *self.peak_gbps.lock()))
    }

    /// A note on its own line (e.g. telemetry unavailable).
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr(), "[{}] {text}", self.label);
        }
    }

    /// Ends the in-place line.
    pub fn close(&self) {
        if self.tty && !self.quiet && self.done.load(Ordering::Relaxed) > 0 {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// The results table. `several_devices` adds a device column.
pub fn table(records: &[Record], baselines: &[Baseline]) -> String {
    let several = records
        .iter()
        .any(|r| r.place.gpu_index != records[0].place.gpu_index);
    let mut head: Vec<String> = ["case", "dtype", "shape", "ms", "GB/s", "%memcpy", "%peak"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if several {
        head.insert(1, "gpu".into());
    }
    head.extend(["W mean", "J/GB", "ok"].map(String::from));
    // A series from another device model shows its own % of memcpy, not a ratio.
    let joins: Vec<bool> = baselines
        .iter()
        .map(|b| records.iter().any(|r| b.same_device(r)))
        .collect();
    for (b, &join) in baselines.iter().zip(&joins) {
        head.push(if join {
            format!("vs {}", b.label)
        } else {
            format!("%memcpy {}", b.label_on_device())
        });
    }
    let mut rows: Vec<Vec<String>> = vec![head];
    for r in records {
        let mut row = vec![
            r.case.clone(),
            r.dtype.clone(),
            dims_x(&r.shape),
            opt(r.ms_median, 4),
            opt(r.gbps, 1),
            opt(r.pct_of_memcpy, 1),
            opt(r.pct_of_peak, 1),
            opt(r.telemetry.power_w_mean, 0),
            opt(r.telemetry.j_per_gb, 3),
            if r.verified { "yes" } else { "NO" }.into(),
        ];
        if several {
            row.insert(1, r.place.gpu_index.map_or("cpu".into(), |g| g.to_string()));
        }
        for (b, &join) in baselines.iter().zip(&joins) {
            let theirs = b.by_case.get(&r.case);
            row.push(if join {
                theirs
                    .filter(|_| b.same_device(r))
                    .and_then(|t| ratio(r, t))
                    .map_or("-".into(), |x| format!("x{x:.2}"))
            } else {
                opt(theirs.and_then(|t| t.pct_of_memcpy), 1)
            });
        }
        rows.push(row);
    }
    let cols = rows[0].len();
    let width: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let numeric_from = if several { 4 } else { 3 };
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c >= numeric_from {
                    format!("{s:>w$}", w = width[c])
                } else {
                    format!("{s:<w$}", w = width[c])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(width.iter().sum::<usize>() + 2 * (cols - 1)));
            out.push('\n');
        }
    }
    // One note per other device model, naming its series.
    let ours = records.iter().find_map(|r| r.place.device_name.as_deref());
    let mut others: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
    for (b, _) in baselines.iter().zip(&joins).filter(|(_, j)| !**j) {
        let d = b.device.as_deref();
        match others.iter_mut().find(|(od, _)| *od == d) {
            Some((_, labels)) => labels.push(&b.label),
            None => others.push((d, vec![&b.label])),
        }
    }
    for (device, labels) in others {
        let named: Vec<String> = labels.iter().map(|l| format!("'{l}'")).collect();
        out.push_str(&format!(
            "{} {} ran on {}, this run on {}: {} own % of memcpy is shown, not a ratio (a ratio across device models means nothing)\n",
            if named.len() == 1 { "baseline" } else { "baselines" },
            named.join(", "),
            device.unwrap_or("an unknown device"),
            ours.unwrap_or("an unknown device"),
            if named.len() == 1 { "its" } else { "their" }
        ));
    }
    out
}

/// `--list`: the cases with their shapes, expressions and byte counts.
pub fn case_list(cases: &[Case]) -> Result<String, super::error::BenchError> {
    let mut rows = vec![[
        "case".to_string(),
        "dtype".into(),
        "shape".into(),
        "MB read".into(),
        "MB written".into(),
        "expression".into(),
    ]];
    for c in cases {
        let w = c.work()?;
        rows.push([
            c.case.clone(),
            c.dtype.to_string(),
            dims_x(&c.shape),
            format!("{:.1}", w.bytes_read as f64 / 1e6),
            format!("{:.1}", w.bytes_written as f64 / 1e6),
            c.expression(),
        ]);
    }
    let width: Vec<usize> = (0..6)
        .map(|k| rows.iter().map(|r| r[k].len()).max().unwrap_or(0))
        .collect();
    Ok(rows
        .iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    if k == 3 || k == 4 {
                        format!("{s:>w$}", w = width[k])
                    } else {
                        format!("{s:<w$}", w = width[k])
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string() + "\n"
        })
        .collect())
}

/// `--list` of the transfer cases.
pub fn transfer_list(cases: &[super::transfers::Transfer]) -> String {
    let w = cases.iter().map(|c| c.case.len()).max().unwrap_or(4).max(4);
    let mut out = format!("{:<w$}  {:>10}  expression\n", "case", "bytes");
    for c in cases {
        out.push_str(&format!(
            "{:<w$}  {:>10}  {}\n",
            c.case,
            c.bytes,
            c.expression()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::tests::{baseline, record};

    #[test]
    fn table_has_a_ratio_column_per_baseline() {
        let mut r = record("t", Some(1.0), None);
        r.gbps = Some(2.0);
        r.pct_of_memcpy = Some(50.0);
        let b = baseline("torch eager", "t", 25.0);
        let t = table(std::slice::from_ref(&r), &[b]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].ends_with("vs torch eager"), "{t}");
        let cells: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "t", "float32", "4x8", "1.0000", "2.0", "50.0", "-", "-", "-", "yes", "x2.00"
            ]
        );
        let t = table(std::slice::from_ref(&r), &[]);
        assert!(t.lines().nth(2).unwrap().ends_with("  yes"), "{t}");

        // A baseline from another device model: its own figure, no ratio, and a note.
        let mut other = baseline("torch eager", "t", 25.0);
        other.device = Some("NVIDIA H200".into());
        let t = table(std::slice::from_ref(&r), std::slice::from_ref(&other));
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].ends_with("%memcpy torch eager on NVIDIA H200"),
            "{t}"
        );
        assert_eq!(lines[2].split_whitespace().last(), Some("25.0"), "{t}");
        assert!(!t.contains("x2.00"), "{t}");
        assert_eq!(
            lines[3],
            "baseline 'torch eager' ran on NVIDIA H200, this run on Test GPU: its own % of memcpy is shown, not a ratio (a ratio across device models means nothing)"
        );
        // Two series of one other device: one note naming both.
        let mut compiled = other.clone();
        compiled.label = "torch.compile".into();
        let t = table(&[r], &[other, compiled]);
        assert_eq!(
            t.lines().nth(3).unwrap(),
            "baselines 'torch eager', 'torch.compile' ran on NVIDIA H200, this run on Test GPU: their own % of memcpy is shown, not a ratio (a ratio across device models means nothing)"
        );
        assert_eq!(t.lines().count(), 4);
    }
}
