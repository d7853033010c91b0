//! Which suite a record belongs to and where it was measured: below the records and the
//! runners that fill them.

/// Which suite a record belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Suite {
    /// Layout copies on one GPU (the default suite).
    #[default]
    Layout,
    /// Host-device and device-device transfers.
    Transfers,
}

impl Suite {
    pub fn name(self) -> &'static str {
        match self {
            Suite::Layout => "layout",
            Suite::Transfers => "transfers",
        }
    }
}

/// Where records were measured: host, device, batch-job ids.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Place {
    pub host: String,
    /// The device model: the GPU's name ("NVIDIA H200"), or "CPU: " and the processor's
    /// model name for the CPU backend. Baselines join ratios only within one model.
    pub device_name: Option<String>,
    pub gpu_index: Option<usize>,
    pub gpu_uuid: Option<String>,
    pub slurm_job_id: Option<String>,
    pub slurm_task_id: Option<String>,
}
