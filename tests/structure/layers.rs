//! The layer-rank check: every file of src/ sits in one layer, and no file imports a file
//! of a layer above its own (an import within one layer is the circle check's business).

use super::graph::{Graph, SourceFile};

/// A layer table: the layers' names bottom up (the index is the rank), and where each file
/// sits: a path prefix under src/ and its layer's name (the longest matching prefix wins).
pub struct Layers<'a> {
    pub names: &'a [&'a str],
    pub places: &'a [(&'a str, &'a str)],
    /// Files outside the check (as importer and as imported).
    pub exempt: &'a [&'a str],
}

impl Layers<'_> {
    /// The rank and layer name of a file; None when no prefix matches.
    pub fn of(&self, path: &str) -> Option<(usize, &str)> {
        let (_, name) = self
            .places
            .iter()
            .filter(|(prefix, _)| path.starts_with(prefix))
            .max_by_key(|(prefix, _)| prefix.len())?;
        let rank = self.names.iter().position(|n| n == name)?;
        Some((rank, self.names[rank]))
    }

    /// One line per file in no layer and per import from a layer to one above it:
    /// `upward import: storage.rs (storage) -> tensor/mod.rs (tensor)`.
    pub fn problems(&self, tree: &[SourceFile]) -> Vec<String> {
        let mut out = Vec::new();
        for (prefix, name) in self.places {
            if !self.names.contains(name) {
                out.push(format!("layer table: {prefix} is in no layer named {name}"));
            }
        }
        let graph = Graph::build(tree);
        let skip = |p: &str| self.exempt.contains(&p);
        for f in graph.files.iter().filter(|f| !skip(f)) {
            if self.of(f).is_none() {
                out.push(format!("no layer: {f}"));
            }
        }
        for (i, from) in graph.files.iter().enumerate() {
            let Some((low, low_name)) = self.of(from).filter(|_| !skip(from)) else {
                continue;
            };
            for &t in &graph.edges[i] {
                let to = &graph.files[t];
                if let Some((high, high_name)) = self.of(to).filter(|_| !skip(to))
                    && high > low
                {
                    out.push(format!(
                        "upward import: {from} ({low_name}) -> {to} ({high_name})"
                    ));
                }
            }
        }
        out
    }
}
