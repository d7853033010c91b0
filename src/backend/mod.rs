//! Executors for copy plans. The CPU backend is the reference every other backend is
//! checked against.

pub mod cpu;
pub mod cuda;
pub mod info;
