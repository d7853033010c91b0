//! The `stridekit` command line.

use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "stridekit",
    version,
    about = "Dense strided tensors: PyTorch's layout semantics, exact storage accounting, CUDA kernels"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program in a subset of PyTorch's Python on the CPU backend and report every
    /// tensor, storage and byte total.
    Explain {
        /// Program file, or `-` for standard input.
        file: Option<PathBuf>,
        /// Program text given on the command line.
        #[arg(
            short = 'e',
            long = "eval",
            value_name = "CODE",
            conflicts_with = "file"
        )]
        code: Option<String>,
        /// Print the JSON report instead of the table.
        #[arg(long)]
        json: bool,
        /// Where the program's tensors live: cpu, cuda (cuda:0), cuda:N, or sim (a simulated
        /// cuda:0 on any machine: host bytes, every storage a block of PyTorch's caching
        /// allocator). The report is the same on every device; on sim and cuda it adds the
        /// allocator's account.
        #[arg(long, default_value = "cpu")]
        device: stridekit::explain::Target,
        /// Refuse writes whose operands overlap where PyTorch does not check (instead of
        /// running them in row-major order with an order_dependent_overlap warning).
        #[arg(long)]
        strict_overlap: bool,
    },
    /// Benchmark the layout-copy suite (GPU or CPU backend) with telemetry; write a table,
    /// JSON, CSV and an SVG plot.
    Bench(stridekit::bench::cli::BenchArgs),
    /// Merge bench JSON from many runs, nodes and GPUs: one row per GPU, fleet medians,
    /// outliers, health flags, and PASS/FAIL against an acceptance file.
    Report(stridekit::report::cli::ReportArgs),
    /// Predict, on the CPU, each bench case's kernel efficiency: sectors per request, bank
    /// conflicts, occupancy and bytes in flight on an H200, and the % of memcpy they allow.
    Model(stridekit::bench::model::cli::ModelArgs),
    /// Which backends this binary can use: kernel image, CUDA driver, devices.
    Info,
    /// The caching device allocator: replay allocation traces under PyTorch's policy.
    Alloc {
        #[command(subcommand)]
        command: stridekit::alloc::cli::AllocCommand,
    },
}

fn read_program(file: Option<PathBuf>, code: Option<String>) -> Result<String, String> {
    match (file, code) {
        (_, Some(code)) => Ok(code),
        (Some(p), None) if p.as_os_str() == "-" => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(s)
        }
        (Some(p), None) => {
            std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))
        }
        (None, None) => Err("give a program file, `-` for standard input, or -e CODE".into()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Alloc { command } => match stridekit::alloc::cli::run(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("stridekit alloc: {e}");
                ExitCode::from(1)
            }
        },
        Command::Bench(args) => match stridekit::bench::cli::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("stridekit bench: {e}");
                ExitCode::from(1)
            }
        },
        // 0: every GPU passes (or no --accept), 1: a GPU fails, 2: unreadable inputs.
        Command::Model(args) => match stridekit::bench::model::cli::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("stridekit model: {e}");
                ExitCode::from(2)
            }
        },
        Command::Report(args) => match stridekit::report::cli::run(args) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("stridekit report: {e}");
                ExitCode::from(2)
            }
        },
        Command::Info => {
            print!("{}", stridekit::backend::info::describe());
            ExitCode::SUCCESS
        }
        Command::Explain {
            file,
            code,
            json,
            device,
            strict_overlap,
        } => {
            let source = match read_program(file, code) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("stridekit explain: {e}");
                    return ExitCode::from(2);
                }
            };
            if let stridekit::explain::Target::Device(stridekit::Device::Cuda(n)) = device {
                // One line, before anything runs: a GPU program on a machine without one.
                match stridekit::backend::cuda::Gpu::shared(n) {
                    Ok(gpu) => eprintln!(
                        "stridekit explain: running on {device} ({}), kernels: {}",
                        gpu.name(),
                        gpu.kernels.image()
                    ),
                    Err(e) => {
                        eprintln!("stridekit explain: --device {device}: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            let report = stridekit::explain::run_with(&source, device, strict_overlap);
            let text = if json {
                match serde_json::to_string(&report) {
                    Ok(s) => s + "\n",
                    Err(e) => {
                        eprintln!("stridekit explain: cannot encode the report: {e}");
                        return ExitCode::from(2);
                    }
                }
            } else {
                report.to_text()
            };
            // A closed pipe (e.g. `| head`) is not an error worth a panic.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            if report.error.is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
