//! Reading bench result files: the arguments (files, directories, glob patterns) become
//! a sorted list of paths, and each file parses into a [`Run`]. A malformed file fails
//! with its name and the path of the field at fault (`records[3].gbps: invalid type`).

use std::path::{Path, PathBuf};

use super::error::ReportError;
use crate::bench::health::Health;
use crate::bench::record::GpuFacts;
use crate::bench::telemetry::WindowStats;
use crate::bench::{Place, Report};

/// One bench result file.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The file's path as given (or as the glob expanded it).
    pub file: String,
    pub report: Report,
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The files the arguments name: a file as itself, a directory as its `*.json` files,
/// a pattern (`results/*/bench-*.json`, quoted so the shell leaves it) as its matches.
/// A pattern or directory matching nothing is an error.
pub fn expand(args: &[String]) -> Result<Vec<PathBuf>, ReportError> {
    let mut out = Vec::new();
    for a in args {
        let found: Vec<PathBuf> = if has_glob(a) {
            let paths =
                glob::glob(a).map_err(|e| ReportError::Usage(format!("pattern '{a}': {e}")))?;
            let mut v = Vec::new();
            for p in paths {
                let p = p.map_err(|e| ReportError::Input {
                    file: e.path().display().to_string(),
                    message: e.error().to_string(),
                })?;
                if p.is_file() {
                    v.push(p);
                }
            }
            v.sort();
            v
        } else if Path::new(a).is_dir() {
            let pattern = Path::new(a).join("*.json");
            let mut v: Vec<PathBuf> = glob::glob(&pattern.to_string_lossy())
                .map_err(|e| ReportError::Usage(format!("directory '{a}': {e}")))?
                .filter_map(Result::ok)
                .collect();
            v.sort();
            v
        } else {
            vec![PathBuf::from(a)]
        };
        if found.is_empty() {
            return Err(ReportError::Usage(format!(
                "'{a}' matches no bench JSON file"
            )));
        }
        out.extend(found);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Parses one bench result file's text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Run, ReportError> {
    let bad = |message: String| ReportError::Input {
        file: file.to_string(),
        message,
    };
    if !text.trim_start().starts_with('{') {
        return Err(bad(
            "not a stridekit bench JSON file ({\"header\": ..., \"records\": [...]})".into(),
        ));
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    let report: Report = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = flattened_field(text, &path).unwrap_or(path);
        bad(format!("field {field}: {inner}"))
    })?;
    if report.records.is_empty() {
        return Err(bad("field records: no record".into()));
    }
    Ok(Run {
        file: file.to_string(),
        report,
    })
}

/// The value at a serde path (`records[5]`, `header.devices[0]`).
fn at<'v>(v: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    let mut cur = v;
    for seg in path.split('.') {
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (n, Some(rest.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (seg, None),
        };
        if !name.is_empty() {
            cur = cur.get(name)?;
        }
        if let Some(i) = index {
            cur = cur.get(i)?;
        }
    }
    Some(cur)
}

/// A record's telemetry, place and health fields and the header's GPU facts are flattened
/// into their objects, so serde's path stops at the object (`records[5]`); this finds the
/// field by reading that object's flattened parts one at a time.
fn flattened_field(text: &str, path: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let obj = at(&v, path)?;
    fn first_bad<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Option<String> {
        serde_path_to_error::deserialize::<_, T>(v)
            .err()
            .map(|e| e.path().to_string())
    }
    first_bad::<WindowStats>(obj)
        .or_else(|| first_bad::<Place>(obj))
        .or_else(|| first_bad::<Health>(obj))
        .or_else(|| first_bad::<GpuFacts>(obj))
        .filter(|f| f != ".")
        .map(|f| format!("{path}.{f}"))
}

/// Reads every file the arguments name.
pub fn read_all(args: &[String]) -> Result<Vec<Run>, ReportError> {
    expand(args)?
        .iter()
        .map(|p| {
            let file = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|e| ReportError::Input {
                file: file.clone(),
                message: e.to_string(),
            })?;
            parse(&file, &text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report_json() -> serde_json::Value {
        let text = include_str!("../../bench/results/cpu-quick/bench.json");
        serde_json::from_str(text).unwrap()
    }

    fn err(v: &serde_json::Value) -> String {
        parse("f.json", &v.to_string()).unwrap_err().to_string()
    }

    #[test]
    fn malformed_files_name_the_file_and_the_field() {
        let mut v = report_json();
        v["records"][2]["gbps"] = "fast".into();
        let e = err(&v);
        assert!(
            e.starts_with(
                "f.json: field records[2].gbps: invalid type: string \"fast\", expected f64 at line 1"
            ),
            "{e}"
        );
        let mut v = report_json();
        v["records"][1]["ecc_uncorrected_after"] = (-1).into();
        let e = err(&v);
        assert!(
            e.starts_with(
                "f.json: field records[1].ecc_uncorrected_after: invalid value: integer `-1`, expected u64"
            ),
            "{e}"
        );
        let mut v = report_json();
        v["records"][0]["gpu_index"] = "zero".into();
        assert!(err(&v).starts_with("f.json: field records[0].gpu_index: "));
        let mut v = report_json();
        v["header"]["peak_gbps"] = "high".into();
        assert!(
            err(&v).starts_with("f.json: field header.peak_gbps: invalid type"),
            "{}",
            err(&v)
        );
        let mut v = report_json();
        v["header"]
            .as_object_mut()
            .unwrap()
            .remove("stridekit_version");
        let e = err(&v);
        assert!(
            e.starts_with("f.json: field header: missing field `stridekit_version`"),
            "{e}"
        );
        let mut v = report_json();
        v["records"] = serde_json::json!([]);
        assert_eq!(err(&v), "f.json: field records: no record");
        let e = parse("f.json", "[1, 2]").unwrap_err().to_string();
        assert!(
            e.starts_with("f.json: not a stridekit bench JSON file"),
            "{e}"
        );
        let e = parse("f.json", "{\"header\": ").unwrap_err().to_string();
        assert!(e.starts_with("f.json: "), "{e}");
    }

    /// A directory is its own `*.json` files; a quoted `**` pattern reaches a rack's
    /// per-job subdirectories; a directory or pattern with no JSON file is an error.
    #[test]
    fn directories_and_recursive_patterns() {
        let root = std::env::temp_dir().join(format!("stridekit-expand-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in [
            "a.json",
            "notes.txt",
            "4242/bench-n1.json",
            "4243/x/bench-n2.json",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "{}").unwrap();
        }
        let names = |args: &[String]| -> Vec<String> {
            expand(args)
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        let r = root.display().to_string();
        assert_eq!(names(std::slice::from_ref(&r)), ["a.json"]);
        assert_eq!(
            names(&[format!("{r}/**/bench-*.json")]),
            ["4242/bench-n1.json", "4243/x/bench-n2.json"]
        );
        // The same file named twice counts once.
        assert_eq!(names(&[r.clone(), format!("{r}/*.json")]), ["a.json"]);
        let empty = root.join("4243");
        let e = expand(&[empty.display().to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("matches no bench JSON file"), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
