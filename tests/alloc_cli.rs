//! The `alloc replay` subcommand as the lead wires it (`stridekit alloc replay ...`).

use clap::Parser;
use stridekit::alloc::cli::{AllocCommand, parse_bytes, run};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: AllocCommand,
}

fn data(name: &str) -> String {
    format!("{}/tests/data/alloc/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("stridekit-alloc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn replay_side_by_side_with_plot_and_addresses() {
    let plot = tmp("p.svg");
    let addrs = tmp("addrs.txt");
    let cli = Cli::try_parse_from([
        "alloc",
        "replay",
        &data("trace_training.csv"),
        "--conf",
        "default;max_split_size_mb:128",
        "--conf",
        "expandable_segments:True",
        "--plot",
        plot.to_str().unwrap(),
        "--record-addresses",
        addrs.to_str().unwrap(),
    ])
    .unwrap();
    run(cli.cmd).unwrap();
    for k in 1..=3 {
        let f = plot.with_file_name(format!("p-{k}.svg"));
        let svg = std::fs::read_to_string(&f).unwrap();
        assert!(
            svg.starts_with("<svg")
                && svg.contains("reserved")
                && svg.trim_end().ends_with("</svg>")
        );
    }
    // Recorded addresses fed back give the same statistics.
    let text = std::fs::read_to_string(&addrs).unwrap();
    assert!(text.lines().filter(|l| !l.starts_with('#')).count() > 10);
    let first: String = text
        .split("# ")
        .nth(1)
        .map(|s| s.lines().skip(1).collect::<Vec<_>>().join("\n"))
        .unwrap();
    let only = tmp("only.txt");
    std::fs::write(&only, first).unwrap();
    let cli = Cli::try_parse_from([
        "alloc",
        "replay",
        &data("trace_training.csv"),
        "--addresses",
        only.to_str().unwrap(),
        "--json",
    ])
    .unwrap();
    run(cli.cmd).unwrap();
}

#[test]
fn replay_errors_are_typed() {
    let bad = tmp("bad.csv");
    std::fs::write(&bad, "a,0,100\na,1,xyz\n").unwrap();
    let cli = Cli::try_parse_from(["alloc", "replay", bad.to_str().unwrap()]).unwrap();
    let e = run(cli.cmd).unwrap_err();
    let m = e.to_string();
    assert!(m.contains(":2") && m.contains("BYTES"), "{m}");
    let cli = Cli::try_parse_from([
        "alloc",
        "replay",
        &data("trace_training.csv"),
        "--conf",
        "nope:1",
    ])
    .unwrap();
    let e = run(cli.cmd).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    let cli = Cli::try_parse_from(["alloc", "replay", "/nonexistent/trace.csv"]).unwrap();
    assert!(run(cli.cmd).is_err());
}

#[test]
fn small_capacity_reports_ooms_without_failing() {
    let cli = Cli::try_parse_from([
        "alloc",
        "replay",
        &data("trace_training.csv"),
        "--capacity",
        "2GiB",
        "--json",
    ])
    .unwrap();
    run(cli.cmd).unwrap();
    assert_eq!(parse_bytes("2GiB").unwrap(), 2 << 30);
    assert_eq!(parse_bytes("80G").unwrap(), 80_000_000_000);
    assert!(parse_bytes("12 parsecs").is_err());
}

/// Byte counts are exact: no rounding through f64, no clamping at u64::MAX.
#[test]
fn byte_counts_are_exact_and_checked() {
    let ok = |s: &str| parse_bytes(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    let err = |s: &str| parse_bytes(s).unwrap_err().to_string();
    assert_eq!(ok("9007199254740993"), 9_007_199_254_740_993); // 2^53 + 1
    assert_eq!(ok("18446744073709551615"), u64::MAX);
    assert_eq!(ok("1.5GiB"), 3 << 29);
    assert_eq!(ok("0.5kib"), 512);
    assert_eq!(ok("15EiB"), 15 << 60);
    assert_eq!(ok("2.000PB"), 2_000_000_000_000_000);
    assert_eq!(ok(" 007 "), 7);
    assert!(err("16EiB").contains("out of range"));
    assert!(err("18446744073709551616").contains("out of range"));
    assert!(err("99999999999999999999999999GiB").contains("out of range"));
    assert!(err("0.1KiB").contains("not a whole number of bytes"));
    assert!(err("1.5").contains("not a whole number of bytes"));
    for s in ["", ".", "1.2.3G", "GiB", "-1G", "1e9"] {
        assert!(parse_bytes(s).is_err(), "{s:?} parsed");
    }
}

#[test]
fn capacity_beyond_any_device_is_refused_by_name() {
    // 2^64 - 1 bytes once overflowed the expandable reservation's size (capacity + 1/8).
    for (cmd, conf) in [("replay", "expandable_segments:True"), ("tune", "")] {
        let mut args = vec!["alloc", cmd, "--capacity", "18446744073709551615"];
        let trace = data("trace_training.csv");
        args.push(&trace);
        if !conf.is_empty() {
            args.extend(["--conf", conf]);
        }
        let cli = Cli::try_parse_from(&args).unwrap();
        let m = run(cli.cmd).unwrap_err().to_string();
        assert!(
            m.contains("--capacity") && m.contains("256 TiB"),
            "{cmd}: {m}"
        );
    }
    // The bound itself is accepted.
    let trace = data("trace_training.csv");
    let cli = Cli::try_parse_from([
        "alloc",
        "replay",
        &trace,
        "--capacity",
        "281474976710656",
        "--conf",
        "expandable_segments:True",
        "--json",
    ])
    .unwrap();
    run(cli.cmd).unwrap();
}

/// A writer whose reader has gone: every write fails with `kind`.
struct Closed(std::io::ErrorKind);

impl std::io::Write for Closed {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(self.0.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Output to a closed pipe is a typed `OutputClosed` (which `run` takes as the end of the
/// command); any other write failure names standard output.
#[test]
fn writes_to_a_closed_output_are_typed() {
    use stridekit::alloc::AllocError;
    use stridekit::alloc::cli::run_to;
    let grid = tmp("closed-grid.txt");
    std::fs::write(&grid, "default\npolicy:stridekit\n").unwrap();
    let grid = grid.display().to_string();
    for args in [
        vec!["replay", "--conf", "default"],
        vec!["replay", "--json"],
        vec!["tune", "--grid", &grid],
    ] {
        let mut argv = vec!["alloc"];
        argv.extend(&args[..1]);
        let trace = data("trace_training.csv");
        argv.push(&trace);
        argv.extend(&args[1..]);
        let cmd = |argv: &[&str]| Cli::try_parse_from(argv).unwrap().cmd;
        let e = run_to(&mut Closed(std::io::ErrorKind::BrokenPipe), cmd(&argv)).unwrap_err();
        assert!(matches!(e, AllocError::OutputClosed), "{argv:?}: {e}");
        let e = run_to(&mut Closed(std::io::ErrorKind::Other), cmd(&argv)).unwrap_err();
        assert!(
            matches!(&e, AllocError::Io { path, .. } if path == "standard output"),
            "{argv:?}: {e}"
        );
    }
}

/// `stridekit alloc replay ... | head`: the reader closes the pipe before the table is
/// written; the command exits 0 without a panic (it used to abort in `print!`).
#[test]
fn a_closed_pipe_ends_the_command_cleanly() {
    use std::process::{Command, Stdio};
    let trace = data("trace_training.csv");
    let mut child = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args([
            "alloc",
            "replay",
            &trace,
            &trace,
            "--conf",
            "default;expandable_segments:True",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end at once: the replays take far longer than this.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
