//! Choosing cases by name (`--cases PATTERN`).

use super::recipe::Case;
use super::suite::MEMCPY_CASE;
use crate::bench::error::BenchError;

/// A case-name pattern: a substring, or a regular expression matched anywhere in the name.
/// A pattern that is no valid regular expression still matches as a substring.
#[derive(Debug, Clone)]
pub struct CasePattern {
    text: String,
    re: Option<regex::Regex>,
}

impl CasePattern {
    pub fn new(pattern: &str) -> CasePattern {
        CasePattern {
            text: pattern.to_string(),
            re: regex::Regex::new(pattern).ok(),
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        name.contains(&self.text) || self.re.as_ref().is_some_and(|r| r.is_match(name))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Keeps the cases whose name contains `pattern` or matches it as a regular expression;
/// the memcpy case is always kept (it is the 100% line).
pub fn filter(cases: Vec<Case>, pattern: Option<&str>) -> Result<Vec<Case>, BenchError> {
    let Some(pat) = pattern else {
        return Ok(cases);
    };
    let pattern = CasePattern::new(pat);
    let hit = |name: &str| pattern.matches(name);
    let kept: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.case == MEMCPY_CASE || hit(&c.case))
        .collect();
    if kept.len() <= 1 && !hit(MEMCPY_CASE) {
        return Err(BenchError::Usage(format!(
            "--cases '{pat}' matches no case (see `stridekit bench --list`)"
        )));
    }
    Ok(kept)
}
