//! The sampling rule, shared by every backend: warm-ups first, then samples until the
//! relative standard deviation of the kept samples is under the limit (after a minimum
//! count and time) or the case's time limit runs out. A sample taken while the SM clock
//! was under a fraction of its maximum is discarded and counted.

use std::time::{Duration, Instant};

/// When to stop sampling a case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingRule {
    /// Untimed runs before sampling.
    pub warmup: usize,
    /// Kept samples needed before the noise test may stop sampling.
    pub min_samples: usize,
    /// Stop once the relative standard deviation (stddev / mean) is at most this.
    pub max_rsd: f64,
    /// Sample at least this long (so telemetry sees the case), unless the limit comes first.
    pub min_time: Duration,
    /// Stop after this long in any case.
    pub time_limit: Duration,
    /// Hard cap on samples taken (kept or discarded).
    pub max_samples: usize,
    /// A sample counts only when the SM clock was at least this fraction of its maximum.
    pub min_clock_fraction: f64,
}

impl Default for SamplingRule {
    fn default() -> Self {
        SamplingRule {
            warmup: 3,
            min_samples: 10,
            max_rsd: 0.005,
            min_time: Duration::from_millis(250),
            time_limit: Duration::from_secs(5),
            max_samples: 100_000,
            min_clock_fraction: 0.75,
        }
    }
}

/// Whether a sample taken at `sm_mhz` counts. Without a clock reading (no telemetry) every
/// sample counts.
pub fn clock_ok(sm_mhz: Option<u32>, max_sm_mhz: Option<u32>, fraction: f64) -> bool {
    match (sm_mhz, max_sm_mhz) {
        (Some(now), Some(max)) if max > 0 => now as f64 >= fraction * max as f64,
        _ => true,
    }
}

/// The samples of one case, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    pub kept: Vec<f64>,
    pub discarded_low_clock: usize,
}

/// Median, min and max of the kept samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub count: usize,
    pub rsd: f64,
}

impl Samples {
    /// Records one sample; `clock_ok` says whether the clock was high enough to keep it.
    pub fn push(&mut self, ms: f64, clock_ok: bool) {
        if clock_ok {
            self.kept.push(ms);
        } else {
            self.discarded_low_clock += 1;
        }
    }

    pub fn taken(&self) -> usize {
        self.kept.len() + self.discarded_low_clock
    }

    /// Relative standard deviation (sample stddev / mean) of the kept samples; infinite
    /// below two samples.
    pub fn rsd(&self) -> f64 {
        let n = self.kept.len();
        if n < 2 {
            return f64::INFINITY;
        }
        let mean = self.kept.iter().sum::<f64>() / n as f64;
        let var = self.kept.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        if mean > 0.0 {
            var.sqrt() / mean
        } else {
            f64::INFINITY
        }
    }

    /// Whether sampling should stop after `elapsed` of sampling.
    pub fn done(&self, rule: &SamplingRule, elapsed: Duration) -> bool {
        if elapsed >= rule.time_limit || self.taken() >= rule.max_samples {
            return true;
        }
        self.kept.len() >= rule.min_samples.max(2)
            && elapsed >= rule.min_time
            && self.rsd() <= rule.max_rsd
    }

    /// None when no sample was kept.
    pub fn summary(&self) -> Option<Summary> {
        if self.kept.is_empty() {
            return None;
        }
        let mut v = self.kept.clone();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Summary {
            median,
            min: v[0],
            max: v[n - 1],
            count: n,
            rsd: self.rsd(),
        })
    }
}

/// Runs `sample` (one timed run: milliseconds and whether the clock was high enough)
/// until the rule says stop.
pub fn sample_until<E>(
    rule: &SamplingRule,
    mut sample: impl FnMut() -> Result<(f64, bool), E>,
) -> Result<Samples, E> {
    let start = Instant::now();
    let mut s = Samples::default();
    while !s.done(rule, start.elapsed()) {
        let (ms, ok) = sample()?;
        s.push(ms, ok);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> SamplingRule {
        SamplingRule {
            min_samples: 5,
            min_time: Duration::from_millis(100),
            time_limit: Duration::from_secs(2),
            ..SamplingRule::default()
        }
    }

    #[test]
    fn stops_when_quiet_after_min_samples_and_time() {
        let r = rule();
        let mut s = Samples::default();
        for _ in 0..4 {
            s.push(1.0, true);
        }
        assert!(!s.done(&r, Duration::from_millis(500)), "4 < min_samples");
        s.push(1.0, true);
        assert!(!s.done(&r, Duration::from_millis(50)), "before min_time");
        assert!(s.done(&r, Duration::from_millis(100)));
    }

    #[test]
    fn noise_keeps_sampling_until_the_limit() {
        let r = rule();
        let mut s = Samples::default();
        for k in 0..50 {
            s.push(if k % 2 == 0 { 1.0 } else { 1.1 }, true);
        }
        assert!(s.rsd() > 0.04 && s.rsd() < 0.06);
        assert!(!s.done(&r, Duration::from_millis(1999)));
        assert!(s.done(&r, Duration::from_secs(2)));
        // 0.5% noise: 1.000 / 1.010 alternating has rsd ~0.5%; 1.000 / 1.008 is under.
        let mut q = Samples::default();
        for k in 0..50 {
            q.push(if k % 2 == 0 { 1.0 } else { 1.008 }, true);
        }
        assert!(q.rsd() < 0.005);
        assert!(q.done(&r, Duration::from_millis(200)));
    }

    #[test]
    fn low_clock_samples_are_discarded_and_counted() {
        let max = Some(1980);
        // 75% of 1980 is 1485.
        assert!(clock_ok(Some(1485), max, 0.75));
        assert!(!clock_ok(Some(1484), max, 0.75));
        assert!(clock_ok(None, max, 0.75), "no reading: keep");
        assert!(clock_ok(Some(100), None, 0.75), "no maximum: keep");
        let clocks = [1980, 1980, 900, 1980, 1200, 1980];
        let times = [1.0, 1.1, 5.0, 1.2, 4.0, 1.3];
        let mut s = Samples::default();
        for (c, t) in clocks.iter().zip(times) {
            s.push(t, clock_ok(Some(*c), max, 0.75));
        }
        assert_eq!(s.discarded_low_clock, 2);
        let sum = s.summary().unwrap();
        assert_eq!((sum.count, sum.min, sum.max), (4, 1.0, 1.3));
        assert!((sum.median - 1.15).abs() < 1e-12);
        // Discarded samples count against the sample cap, not towards min_samples.
        let r = SamplingRule {
            max_samples: 6,
            ..rule()
        };
        assert!(s.done(&r, Duration::ZERO));
    }

    #[test]
    fn all_discarded_has_no_summary_and_sample_until_stops() {
        let r = SamplingRule {
            time_limit: Duration::from_millis(30),
            ..rule()
        };
        let s = sample_until::<()>(&r, || Ok((1.0, false))).unwrap();
        assert!(s.summary().is_none());
        assert!(s.discarded_low_clock > 0);
        let s = sample_until::<()>(&r, || Ok((2.0, true))).unwrap();
        assert!(s.kept.len() >= 5);
        assert_eq!(s.summary().unwrap().median, 2.0);
        assert_eq!(
            sample_until(&r, || Err::<(f64, bool), _>("boom")),
            Err("boom")
        );
    }
}
