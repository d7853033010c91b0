//! What this binary can run on: `stridekit info`.

use std::fmt::Write;

use super::cuda::{self, CudaError, Gpu};

/// A few lines naming the kernel image this binary carries, whether a CUDA driver is
/// present, and each device (name, compute capability, memory) with the kernels it loads.
pub fn describe() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "stridekit {} (build {})",
        env!("CARGO_PKG_VERSION"),
        crate::BUILD
    );
    let _ = writeln!(s, "kernel image: {}", cuda::kernel_image());
    let _ = writeln!(s, "backend cpu: always available (the reference backend)");
    match cuda::device_count() {
        Err(CudaError::NoDriver) => {
            let _ = writeln!(
                s,
                "backend cuda: unavailable: libcuda could not be loaded (no NVIDIA driver); the CPU backend serves"
            );
        }
        Err(e) => {
            let _ = writeln!(s, "backend cuda: unavailable: {e}");
        }
        Ok(0) => {
            let _ = writeln!(s, "backend cuda: the driver sees no device");
        }
        Ok(n) => {
            let _ = writeln!(s, "backend cuda: {n} device(s)");
            for i in 0..n {
                let _ = match Gpu::shared(i) {
                    Ok(g) => {
                        let cc = g.ctx.compute_capability().unwrap_or((0, 0));
                        let mem = g.ctx.total_mem().unwrap_or(0) as f64 / (1u64 << 30) as f64;
                        writeln!(
                            s,
                            "  cuda:{i}  {}  compute {}.{}  {mem:.1} GiB  kernels: {}",
                            g.name(),
                            cc.0,
                            cc.1,
                            g.kernels.image()
                        )
                    }
                    Err(e) => writeln!(s, "  cuda:{i}  unusable: {e}"),
                };
            }
        }
    }
    s
}
