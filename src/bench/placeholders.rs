//! Output paths with placeholders, so one command line serves a whole rack:
//! `--json 'results/{slurm_job}/bench-{host}-{gpu}.json'`. Pure.

/// The values the placeholders stand for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathValues {
    /// `{host}`: the host name.
    pub host: String,
    /// `{gpu}`: the `--device` value (`0`, `all`, `cpu`).
    pub gpu: String,
    /// `{slurm_job}`: SLURM_JOB_ID, `none` outside SLURM.
    pub slurm_job: String,
    /// `{slurm_proc}`: SLURM_PROCID (else SLURM_ARRAY_TASK_ID), `none` outside SLURM.
    pub slurm_proc: String,
    /// `{date}`: the run's start in UTC, `20261201T083000Z`.
    pub date: String,
}

/// The placeholder names, in the order the README lists them.
pub const PLACEHOLDERS: [&str; 5] = ["host", "gpu", "slurm_job", "slurm_proc", "date"];

/// Characters that would change the meaning of a path (a host name with a slash).
fn path_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect()
}

/// `template` with every `{name}` replaced; an unknown name or an unclosed brace is an
/// error naming it.
pub fn expand(template: &str, v: &PathValues) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("'{template}': a '{{' without its '}}'"));
        };
        let name = &after[..close];
        let value = match name {
            "host" => &v.host,
            "gpu" => &v.gpu,
            "slurm_job" => &v.slurm_job,
            "slurm_proc" => &v.slurm_proc,
            "date" => &v.date,
            _ => {
                return Err(format!(
                    "'{template}': unknown placeholder {{{name}}} (known: {})",
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(" ")
                ));
            }
        };
        out.push_str(&path_safe(value));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `{date}`'s form of seconds since the Unix epoch: `20261201T083000Z`.
pub fn compact_utc(secs: u64) -> String {
    super::record::rfc3339_utc(secs).replace(['-', ':'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> PathValues {
        PathValues {
            host: "node/7".into(),
            gpu: "all".into(),
            slurm_job: "4242".into(),
            slurm_proc: "none".into(),
            date: compact_utc(1_796_000_000),
        }
    }

    #[test]
    fn placeholders_expand() {
        assert_eq!(
            expand(
                "r/{slurm_job}/b-{host}-{gpu}-{slurm_proc}-{date}.json",
                &values()
            )
            .unwrap(),
            "r/4242/b-node_7-all-none-20261130T005320Z.json"
        );
        assert_eq!(expand("plain.json", &values()).unwrap(), "plain.json");
        assert_eq!(
            expand("a-{nodename}.json", &values()).unwrap_err(),
            "'a-{nodename}.json': unknown placeholder {nodename} (known: {host} {gpu} {slurm_job} {slurm_proc} {date})"
        );
        assert!(
            expand("a-{host.json", &values())
                .unwrap_err()
                .contains("without its")
        );
    }
}
