//! The README orients and docs/ holds the reference (issue 19): README.md stays within 300
//! lines, links every page under docs/, and every relative link in README.md and docs/*.md
//! points to a file that exists. The README's TV-209 example is the real program and the
//! real report.

use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 300;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The markdown pages under `dir` (not recursive), sorted.
fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    out.sort();
    out
}

/// The targets of the inline links and images (`[text](target)`, `![alt](target)`) of a
/// markdown text, outside fenced code blocks and inline code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop inline code spans: `a](b)` inside backticks is not a link.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            match after.find(')') {
                Some(end) => {
                    out.push(after[..end].trim().to_string());
                    rest = &after[end + 1..];
                }
                None => break,
            }
        }
    }
    out
}

/// The relative links of `file` whose target file does not exist, as `file: target`.
fn broken_links(file: &Path) -> Vec<String> {
    let dir = file.parent().unwrap();
    link_targets(&read(file))
        .into_iter()
        .filter(|t| !t.contains("://") && !t.starts_with("mailto:") && !t.starts_with('#'))
        .filter(|t| {
            let path = t.split('#').next().unwrap();
            !dir.join(path).exists()
        })
        .map(|t| format!("{}: {t}", file.display()))
        .collect()
}

#[test]
fn readme_is_at_most_300_lines() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; the reference belongs in docs/ (at most {README_MAX_LINES})"
    );
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let targets = link_targets(&read(&root().join("README.md")));
    let docs = pages(&root().join("docs"));
    for page in [
        "explain",
        "trace",
        "alloc",
        "bench",
        "report",
        "embedding",
        "cuda",
        "architecture",
    ] {
        let path = root().join("docs").join(format!("{page}.md"));
        assert!(docs.contains(&path), "docs/{page}.md is missing");
    }
    let unlinked: Vec<String> = docs
        .iter()
        .map(|p| format!("docs/{}", p.file_name().unwrap().to_string_lossy()))
        .filter(|p| {
            !targets
                .iter()
                .any(|t| t.split('#').next() == Some(p.as_str()))
        })
        .collect();
    assert!(
        unlinked.is_empty(),
        "not linked from README.md: {unlinked:?}"
    );
}

#[test]
fn relative_links_resolve() {
    let mut files = vec![root().join("README.md")];
    files.extend(pages(&root().join("docs")));
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(
        broken.is_empty(),
        "links to files that do not exist: {broken:#?}"
    );
}

#[test]
fn the_link_checker_sees_a_broken_link() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs_links");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/real.md"), "# real\n").unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "[ok](docs/real.md#part) [web](https://example.org/x) [anchor](#here)\n\
         ![img](docs/missing.svg) `[code](docs/nope.md)`\n\
         ```text\n[fenced](docs/nope2.md)\n```\n\
         [gone](docs/gone.md)\n",
    )
    .unwrap();
    let broken = broken_links(&page);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].ends_with(": docs/missing.svg"), "{broken:?}");
    assert!(broken[1].ends_with(": docs/gone.md"), "{broken:?}");
}

/// The fenced block of `lang` that follows `marker` in `text`.
fn block_after(text: &str, marker: &str, lang: &str) -> String {
    let at = text.find(marker).expect("example marker");
    let open = format!("```{lang}\n");
    let rest = &text[at..];
    let start = rest.find(&open).expect("opening fence") + open.len();
    let end = start + rest[start..].find("```").expect("closing fence");
    rest[start..end].to_string()
}

#[test]
fn the_readme_tv209_example_is_the_program_and_its_report() {
    let readme = read(&root().join("README.md"));
    let program = read(&root().join("examples/tv209.py"));
    let marker = "TV-209 from the seed";
    assert_eq!(block_after(&readme, marker, "python"), program);
    let report = stridekit::explain::run(&program);
    assert!(report.error.is_none(), "{:?}", report.error);
    let shown = block_after(&readme, marker, "text");
    // Lines as printed, less trailing blanks (the flags column pads an empty cell).
    let lines = |s: &str| -> Vec<String> {
        s.trim_end()
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    };
    assert_eq!(lines(&shown), lines(&report.to_text()));
}
