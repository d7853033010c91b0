// Reading ptxas' resource report (`-Xptxas -v`): registers, stack and spills per kernel.
// Shared by build.rs and tests/ptxas_report.rs.

/// One kernel's resource use for one architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelUsage {
    pub function: String,
    pub arch: String,
    pub registers: u32,
    pub stack_bytes: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

fn number_before(line: &str, suffix: &str) -> Option<u32> {
    let end = line.find(suffix)?;
    let head = line[..end].trim_end();
    let start = head
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    head[start..].parse().ok()
}

/// Parses the report: an "Compiling entry function 'F' for 'sm_XX'" line is followed by a
/// line with "N bytes stack frame, S bytes spill stores, L bytes spill loads" and a line with
/// "Used R registers".
pub fn parse(report: &str) -> Vec<KernelUsage> {
    let mut out: Vec<KernelUsage> = Vec::new();
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let mut parts = rest.split('\'');
            let function = parts.next().unwrap_or("").to_string();
            let arch = parts.nth(1).unwrap_or("").to_string();
            out.push(KernelUsage {
                function,
                arch,
                registers: 0,
                stack_bytes: 0,
                spill_stores: 0,
                spill_loads: 0,
            });
        } else if let Some(k) = out.last_mut() {
            if line.contains("bytes spill stores") {
                k.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used ") && line.contains(" registers") {
                k.registers = number_before(line, "registers").unwrap_or(0);
            }
        }
    }
    out
}

/// The kernels that spill (spill stores or loads non-zero).
pub fn spills(usage: &[KernelUsage]) -> Vec<&KernelUsage> {
    usage
        .iter()
        .filter(|k| k.spill_stores > 0 || k.spill_loads > 0 || k.stack_bytes > 0)
        .collect()
}

/// One line per architecture: kernel count and the register range.
pub fn summary(usage: &[KernelUsage]) -> String {
    let mut archs: Vec<&str> = usage.iter().map(|k| k.arch.as_str()).collect();
    archs.sort_unstable();
    archs.dedup();
    let mut lines = Vec::new();
    for arch in archs {
        let ks: Vec<&KernelUsage> = usage.iter().filter(|k| k.arch == arch).collect();
        let min = ks.iter().map(|k| k.registers).min().unwrap_or(0);
        let max = ks.iter().map(|k| k.registers).max().unwrap_or(0);
        let stack = ks.iter().map(|k| k.stack_bytes).max().unwrap_or(0);
        let spill: u32 = ks.iter().map(|k| k.spill_stores + k.spill_loads).sum();
        lines.push(format!(
            "{arch}: {} kernels, {min}-{max} registers, max stack {stack} B, spill {spill} B",
            ks.len()
        ));
    }
    lines.join("\n")
}
