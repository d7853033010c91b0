//! The vector instructions the CPU backend may use: what the CPU has, detected once per
//! process, capped by `STRIDEKIT_CPU_CAPABILITY` (as PyTorch's `ATEN_CPU_CAPABILITY`).
//!
//! Every path writes the same bytes (each is checked against [`super::reference`]), so the
//! cap changes speed only. It lets a user step around a slow or faulty vector unit, lets
//! one host time the paths of smaller CPUs, and lets the tests run the AVX2-only and the
//! baseline paths on a host with AVX-512 (`scripts/test` runs the CPU tests once per
//! level). The cap never enables what the CPU lacks.

use std::sync::OnceLock;

/// The environment variable that caps the vector instructions: `avx512` (no cap, the
/// default), `avx2` (AVX2, AVX and F16C; no AVX-512) or `default` (the baseline target's
/// code only: no run-time detected extension).
pub const CAPABILITY_ENV: &str = "STRIDEKIT_CPU_CAPABILITY";

/// A level of vector instructions, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Capability {
    /// The baseline target's code only.
    Default,
    /// AVX2, AVX and F16C.
    Avx2,
    /// AVX-512 (F, BW, VBMI where the CPU has them) besides.
    Avx512,
}

impl Capability {
    /// The level named `s` (`default`, `avx2`, `avx512`; ASCII case ignored).
    pub fn parse(s: &str) -> Option<Capability> {
        match s.trim().to_ascii_lowercase().as_str() {
            "default" => Some(Capability::Default),
            "avx2" => Some(Capability::Avx2),
            "avx512" => Some(Capability::Avx512),
            _ => None,
        }
    }

    /// The level's name, as [`Self::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Default => "default",
            Capability::Avx2 => "avx2",
            Capability::Avx512 => "avx512",
        }
    }
}

/// The extensions the vector paths ask for, each true only when the CPU has it and the cap
/// allows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Features {
    pub avx2: bool,
    /// AVX and F16C (the float16 conversions).
    pub f16c: bool,
    /// AVX-512 F, with AVX2.
    pub avx512f: bool,
    /// AVX-512 F and BW.
    pub avx512bw: bool,
    /// AVX-512 F, BW and VBMI.
    pub avx512vbmi: bool,
}

impl Features {
    /// `self` with every extension above `cap` turned off.
    fn capped(self, cap: Capability) -> Features {
        match cap {
            Capability::Avx512 => self,
            Capability::Avx2 => Features {
                avx2: self.avx2,
                f16c: self.f16c,
                ..Features::default()
            },
            Capability::Default => Features::default(),
        }
    }

    /// The highest level whose extensions are all on (AVX-512 needs F and BW).
    fn level(self) -> Capability {
        if self.avx512bw && self.avx2 {
            Capability::Avx512
        } else if self.avx2 {
            Capability::Avx2
        } else {
            Capability::Default
        }
    }
}

/// What this CPU has, uncapped.
fn detected() -> Features {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = is_x86_feature_detected!("avx2");
        let f = is_x86_feature_detected!("avx512f") && avx2;
        let bw = f && is_x86_feature_detected!("avx512bw");
        Features {
            avx2,
            f16c: is_x86_feature_detected!("avx") && is_x86_feature_detected!("f16c"),
            avx512f: f,
            avx512bw: bw,
            avx512vbmi: bw && is_x86_feature_detected!("avx512vbmi"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Features::default()
    }
}

/// The cap `STRIDEKIT_CPU_CAPABILITY` sets (none when unset; a value that names no level
/// is reported once on standard error and ignored).
fn cap_from_environment() -> Capability {
    match std::env::var(CAPABILITY_ENV) {
        Err(_) => Capability::Avx512,
        Ok(v) => Capability::parse(&v).unwrap_or_else(|| {
            eprintln!(
                "stridekit: {CAPABILITY_ENV}={v:?} is not one of default, avx2, avx512; ignored"
            );
            Capability::Avx512
        }),
    }
}

/// The extensions the vector paths may use: detected and capped once per process.
pub(super) fn features() -> Features {
    static F: OnceLock<Features> = OnceLock::new();
    *F.get_or_init(|| detected().capped(cap_from_environment()))
}

/// The level the CPU backend runs at: the highest that the CPU has and the cap allows.
pub fn capability() -> Capability {
    features().level()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_by_name() {
        for c in [Capability::Default, Capability::Avx2, Capability::Avx512] {
            assert_eq!(Capability::parse(c.name()), Some(c));
        }
        assert_eq!(Capability::parse(" AVX2 "), Some(Capability::Avx2));
        assert_eq!(Capability::parse("avx512f"), None);
        assert_eq!(Capability::parse(""), None);
    }

    #[test]
    fn a_cap_turns_off_what_is_above_it_and_never_adds() {
        let all = Features {
            avx2: true,
            f16c: true,
            avx512f: true,
            avx512bw: true,
            avx512vbmi: true,
        };
        assert_eq!(all.capped(Capability::Avx512), all);
        assert_eq!(all.capped(Capability::Avx512).level(), Capability::Avx512);
        let two = all.capped(Capability::Avx2);
        assert!(two.avx2 && two.f16c && !two.avx512f && !two.avx512bw && !two.avx512vbmi);
        assert_eq!(two.level(), Capability::Avx2);
        assert_eq!(all.capped(Capability::Default), Features::default());
        assert_eq!(Features::default().level(), Capability::Default);
        // A CPU without AVX2 stays without it under any cap.
        let old = Features {
            f16c: true,
            ..Features::default()
        };
        assert_eq!(old.capped(Capability::Avx512), old);
        assert_eq!(old.capped(Capability::Avx2), old);
        assert_eq!(old.level(), Capability::Default);
    }

    /// The process's features are the CPU's, capped as the environment says (the suite
    /// runs once per level in `scripts/test`).
    #[test]
    fn the_process_runs_at_the_capped_level() {
        let cap = cap_from_environment();
        assert!(capability() <= cap);
        assert_eq!(features(), detected().capped(cap));
    }
}
