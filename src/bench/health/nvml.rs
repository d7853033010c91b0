//! Reads a [`Snapshot`] from NVML. Every query that fails (unsupported by the GPU or the
//! driver, ECC disabled, a lost GPU) leaves its reading as the reason, never a panic.

use nvml_wrapper::Device;
use nvml_wrapper::enum_wrappers::device::{
    EccCounter, MemoryError, PerformancePolicy, RetirementCause,
};
use nvml_wrapper::error::{NvmlError, nvml_try};

use super::{Read, RowRemap, Snapshot};

/// NVML's error in the words of a record note.
fn reason(e: NvmlError) -> String {
    match e {
        NvmlError::NotSupported => "not supported by this GPU or driver".into(),
        NvmlError::NoPermission => "NVML denies this query to the current user".into(),
        NvmlError::FailedToLoadSymbol(_) => "this NVML library lacks the query".into(),
        e => format!("NVML: {e}"),
    }
}

fn read<T>(r: Result<T, NvmlError>) -> Read<T> {
    r.map_err(reason)
}

/// Volatile ECC counts (since the driver loaded), when ECC is on.
fn ecc(dev: &Device, kind: MemoryError) -> Read<u64> {
    match dev.is_ecc_enabled() {
        Ok(m) if !m.currently_enabled => Err("ECC is disabled".into()),
        Err(e) => Err(reason(e)),
        Ok(_) => read(dev.total_ecc_errors(kind, EccCounter::Volatile)),
    }
}

/// Pages retired for either cause (GPUs before Ampere; later ones remap rows instead).
fn retired_pages(dev: &Device) -> Read<u64> {
    let single = read(dev.retired_pages(RetirementCause::MultipleSingleBitEccErrors))?;
    let double = read(dev.retired_pages(RetirementCause::DoubleBitEccError))?;
    Ok((single.len() + double.len()) as u64)
}

/// nvmlDeviceGetRemappedRows (not wrapped by nvml-wrapper 0.13).
fn row_remap(dev: &Device) -> Read<RowRemap> {
    let sym = dev
        .nvml()
        .lib()
        .nvmlDeviceGetRemappedRows
        .as_ref()
        .map_err(|_| "this NVML library lacks nvmlDeviceGetRemappedRows".to_string())?;
    let (mut corrected, mut uncorrected, mut pending, mut failure) = (0u32, 0u32, 0u32, 0u32);
    // SAFETY: the handle belongs to a live Nvml (the Device borrows it); the four
    // out-parameters are plain integers.
    let code = unsafe {
        sym(
            dev.handle(),
            &mut corrected,
            &mut uncorrected,
            &mut pending,
            &mut failure,
        )
    };
    read(nvml_try(code))?;
    Ok(RowRemap {
        pending: pending != 0,
        failure: failure != 0,
    })
}

/// Cumulative time the clocks were held down by a policy, in milliseconds.
fn violation_ms(dev: &Device, p: PerformancePolicy) -> Read<f64> {
    read(dev.violation_status(p)).map(|v| v.violation_time as f64 / 1e6)
}

/// Every health reading of `dev` now.
pub fn snapshot(dev: &Device) -> Snapshot {
    Snapshot {
        ecc_corrected: ecc(dev, MemoryError::Corrected),
        ecc_uncorrected: ecc(dev, MemoryError::Uncorrected),
        retired_pages: retired_pages(dev),
        row_remap: row_remap(dev),
        pcie_replay: read(dev.pcie_replay_counter()).map(u64::from),
        pcie_link_gen: read(dev.current_pcie_link_gen()),
        pcie_link_gen_max: read(dev.max_pcie_link_gen()),
        pcie_link_width: read(dev.current_pcie_link_width()),
        pcie_link_width_max: read(dev.max_pcie_link_width()),
        power_violation_ms: violation_ms(dev, PerformancePolicy::Power),
        thermal_violation_ms: violation_ms(dev, PerformancePolicy::Thermal),
    }
}
