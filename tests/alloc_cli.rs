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
