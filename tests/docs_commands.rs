//! Every shell command the README and the bench and report pages show runs as shown (issue
//! 19: a newcomer's first commands must work), and the explain, alloc, embedding and trace
//! pages'. Each line of their `sh` blocks is listed in
//! [`COMMANDS`] with what the test does with it: run it (in a fresh directory holding the
//! repository's `tests/` and `examples/` and, as `results/4242/`, the synthetic fleet of
//! tests/data/fleet/) and check its exit status and outputs; run a GPU (or minutes-long)
//! bench command with `--list` appended (its options and output paths are parsed and the
//! case spec is written, no GPU needed); or leave it, with the reason. A line not listed, or listed but no longer shown,
//! fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the test does with a command line.
#[derive(Debug, Clone, Copy)]
enum How {
    /// Run it; expect this exit status and these files afterwards.
    Run(i32, &'static [&'static str]),
    /// A GPU run, or a CPU one of minutes: run it with `--list` appended (options, output
    /// paths and placeholders are checked, the case spec written), expect status 0 and these
    /// files.
    Listed(&'static [&'static str]),
    /// Not run, for this reason.
    Not(&'static str),
}

use How::*;

/// (page, the command as shown less its trailing comment, what the test does).
const COMMANDS: [(&str, &str, How); 42] = [
    (
        "README.md",
        "cargo build --release",
        Not("the build itself"),
    ),
    (
        "README.md",
        "cargo install --path .",
        Not("installs into ~/.cargo"),
    ),
    (
        "README.md",
        "pip install ./python",
        Not("scripts/test-python builds and tests the module"),
    ),
    (
        "README.md",
        "cargo run --release -- explain examples/tv209.py",
        Run(0, &[]),
    ),
    ("README.md", "scripts/test", Not("the test suite itself")),
    (
        "README.md",
        "stridekit alloc replay tests/data/alloc/real/bert_serve.csv --conf 'default;expandable_segments:True'",
        Run(0, &[]),
    ),
    (
        "README.md",
        "stridekit bench --device all --json 'results/{slurm_job}/bench-{host}.json'",
        Listed(&["results/4343"]),
    ),
    (
        "README.md",
        "stridekit report 'results/4242/bench-*.json' --accept examples/accept/h200.toml --markdown report.md",
        Run(1, &["report.md"]),
    ),
    (
        "README.md",
        "sbatch --nodes=64 examples/slurm/stridekit-rack.sbatch",
        Not("needs SLURM (the script's steps are the two lines above)"),
    ),
    (
        "README.md",
        "stridekit alloc tune tests/data/alloc/trace_*.csv --top 5 --plot tune.svg",
        Run(0, &["tune.svg"]),
    ),
    ("docs/bench.md", "stridekit bench", Listed(&[])),
    (
        "docs/bench.md",
        "stridekit bench --device all --json h200.json",
        Listed(&["h200.json"]),
    ),
    // About a minute on a small VM; tests/bench_cli.rs runs the CPU bench on a subset.
    (
        "docs/bench.md",
        "stridekit bench --device cpu --quick --json out.json --csv out.csv --plot out.svg",
        Listed(&["out.json"]),
    ),
    ("docs/bench.md", "stridekit bench --list", Run(0, &[])),
    (
        "docs/bench.md",
        "stridekit bench --cases 'transpose|heads' --baseline torch.json --plot vs_torch.svg",
        Listed(&[]),
    ),
    (
        "docs/bench.md",
        "python3 scripts/compare_torch.py --stridekit target/release/stridekit --out torch.json",
        Not("needs PyTorch and a GPU"),
    ),
    (
        "docs/report.md",
        "stridekit report 'results/4242/bench-*.json'",
        Run(0, &[]),
    ),
    (
        "docs/report.md",
        "stridekit report results/4242/ --accept examples/accept/h200.toml --markdown report.md --plot report.svg",
        Run(1, &["report.md", "report.svg"]),
    ),
    (
        "docs/report.md",
        "stridekit report 'results/*/*.json' --json - | jq '.gpus[] | select(.flags != [])'",
        Not("pipes into jq, which a test machine may lack"),
    ),
    (
        "docs/report.md",
        "stridekit report 'results/**/bench-*.json'",
        Run(0, &[]),
    ),
    // docs/cuda.md's GPU-check lines.
    (
        "docs/cuda.md",
        "scripts/gpu-check build",
        Not("builds release and GPU test binaries (tests/gpu_check_script.rs checks the script)"),
    ),
    (
        "docs/cuda.md",
        "bash scripts/gpu-check all",
        Not("needs a GPU"),
    ),
    (
        "docs/cuda.md",
        "bash scripts/gpu-check bench",
        Not("needs a GPU"),
    ),
    (
        "docs/cuda.md",
        "bash scripts/gpu-check bench --cases rand_",
        Not("needs a GPU"),
    ),
    (
        "docs/cuda.md",
        "bash scripts/gpu-check bench --variants eager,compile --cases 'transpose2d|heads'",
        Not("needs a GPU and PyTorch"),
    ),
    // docs/explain.md's command lines.
    (
        "docs/explain.md",
        "stridekit explain examples/tv209.py",
        Run(0, &[]),
    ),
    (
        "docs/explain.md",
        "stridekit explain - < examples/tv209.py",
        Run(0, &[]),
    ),
    (
        "docs/explain.md",
        "stridekit explain -e 'x = torch.arange(12.).view(4, 3); t = x.T'",
        Run(0, &[]),
    ),
    (
        "docs/explain.md",
        "stridekit explain --json examples/tv209.py",
        Run(0, &[]),
    ),
    (
        "docs/explain.md",
        "stridekit explain --strict-overlap examples/tv209.py",
        Run(0, &[]),
    ),
    (
        "docs/explain.md",
        "stridekit explain --device sim examples/tv209.py",
        Run(0, &[]),
    ),
    // docs/alloc.md, docs/embedding.md and docs/trace.md.
    (
        "docs/alloc.md",
        "stridekit alloc tune TRACE... [--capacity BYTES] [--grid FILE] [--top N] [--json] [--plot F.svg]",
        Not(
            "a synopsis (placeholders); tests/alloc_tune.rs and tests/alloc_cli.rs run each option",
        ),
    ),
    (
        "docs/embedding.md",
        "cargo build --release --lib",
        Not("the build itself"),
    ),
    (
        "docs/embedding.md",
        "cc prog.c -Iinclude -Ltarget/release -lstridekit -Wl,-rpath,$PWD/target/release",
        Not("tests/c_example.rs compiles the page's C snippet and examples/c against the library"),
    ),
    (
        "docs/trace.md",
        "python scripts/record_model_traces.py [--out DIR] [--only NAME ...] [--threads N]",
        Not(
            "a synopsis; minutes of PyTorch model steps (the recorded traces are in tests/data/alloc/real)",
        ),
    ),
    (
        "docs/trace.md",
        "python scripts/record_model_traces.py --device cuda --out DIR [--only NAME ...]",
        Not("needs a GPU"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace PROG.py [ARGS...]",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace --json FILE PROG.py",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace --device sim PROG.py",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace --device sim --alloc-conf expandable_segments:True PROG.py",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace --device sim --save-trace t.csv PROG.py",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
    (
        "docs/trace.md",
        "python -m stridekit trace --fake --device sim PROG.py",
        Not("needs the Python venv: python/tests/test_trace.py runs it"),
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The command lines of a page's `sh` blocks, less trailing `# comments` and blank lines.
fn shown(page: &str) -> Vec<String> {
    shown_in(&root().join(page))
}

fn shown_in(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("page reads");
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            inside = !inside && t == "```sh";
            continue;
        }
        if !inside {
            continue;
        }
        // A comment starts at ` #` outside quotes.
        let mut quote = None;
        let mut end = t.len();
        for (i, c) in t.char_indices() {
            match (quote, c) {
                (None, '\'' | '"') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '#') if i == 0 || t[..i].ends_with(' ') => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let cmd = t[..end].trim();
        if !cmd.is_empty() {
            out.push(cmd.to_string());
        }
    }
    out
}

const PAGES: [&str; 8] = [
    "README.md",
    "docs/bench.md",
    "docs/report.md",
    "docs/cuda.md",
    "docs/explain.md",
    "docs/alloc.md",
    "docs/embedding.md",
    "docs/trace.md",
];

#[test]
fn every_shown_command_is_listed_and_every_listed_one_is_shown() {
    let mut unlisted = Vec::new();
    for page in PAGES {
        for cmd in shown(page) {
            if !COMMANDS.iter().any(|(p, c, _)| *p == page && *c == cmd) {
                unlisted.push(format!("{page}: {cmd}"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "commands shown but not in tests/docs_commands.rs COMMANDS (say how to check each):\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<String> = COMMANDS
        .iter()
        .filter(|(p, c, _)| !shown(p).iter().any(|s| s == c))
        .map(|(p, c, _)| format!("{p}: {c}"))
        .collect();
    assert!(stale.is_empty(), "listed but no longer shown: {stale:#?}");
}

/// A fresh directory holding `tests/` and `examples/` (links) and the synthetic fleet as
/// `results/4242/`.
fn workdir(n: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("docs_commands_{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("results/4242")).unwrap();
    for name in ["tests", "examples"] {
        std::os::unix::fs::symlink(root().join(name), dir.join(name)).unwrap();
    }
    let fleet = root().join("tests/data/fleet");
    for e in std::fs::read_dir(&fleet).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("bench-") && name.ends_with(".json") {
            std::fs::copy(&p, dir.join("results/4242").join(name)).unwrap();
        }
    }
    dir
}

#[test]
fn the_shown_commands_run_as_shown() {
    let bin = Path::new(env!("CARGO_BIN_EXE_stridekit"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (k, (page, cmd, how)) in COMMANDS.iter().enumerate() {
        let (line, code, outputs) = match how {
            Not(reason) => {
                assert!(
                    !reason.is_empty(),
                    "{page}: `{cmd}` needs a reason not to run"
                );
                continue;
            }
            Run(code, outputs) => (cmd.to_string(), *code, *outputs),
            Listed(outputs) => (format!("{cmd} --list"), 0, *outputs),
        };
        let line = match line.strip_prefix("cargo run --release -- ") {
            Some(rest) => format!("stridekit {rest}"),
            None => line,
        };
        let dir = workdir(k);
        let out = Command::new("sh")
            .args(["-c", &line])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("SLURM_JOB_ID", "4343")
            .env_remove("SLURM_PROCID")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .expect("run sh");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{page}: `{line}` exited {:?}\nstdout: {stdout}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !outputs.is_empty() || !stdout.trim().is_empty(),
            "{page}: `{line}` printed nothing"
        );
        for f in outputs {
            assert!(dir.join(f).exists(), "{page}: `{line}` wrote no {f}");
        }
        ran += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(ran, 19);
}

#[test]
fn the_readme_explain_command_prints_the_report_it_shows() {
    let out = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(["explain", "examples/tv209.py"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    let trimmed = |s: &str| -> Vec<String> {
        s.trim_end()
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    };
    let at = readme
        .find("`stridekit explain examples/tv209.py` prints:")
        .expect("the README shows the report");
    let block = &readme[at..];
    let start = block.find("```text\n").unwrap() + "```text\n".len();
    let end = start + block[start..].find("```").unwrap();
    assert_eq!(trimmed(&block[start..end]), trimmed(&printed));
}

#[test]
fn comments_and_other_blocks_are_not_commands() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs_commands_parse");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "```sh\nstridekit a 'x # y'   # comment\n\n# only a comment\nstridekit b#c\n```\n\
         ```python\nprint(1)\n```\n```text\nstridekit not-a-command\n```\n",
    )
    .unwrap();
    assert_eq!(
        shown_in(&page),
        vec!["stridekit a 'x # y'", "stridekit b#c"]
    );
}
