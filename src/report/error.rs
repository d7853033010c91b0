//! Typed failures of `stridekit report`; each names the file (and the field) at fault.
//! All of them exit with status 2: the inputs could not be read.

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A bench result file that cannot be read or is not one.
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    /// A file pattern that names no file.
    #[error("{0}")]
    Usage(String),
    /// An acceptance file that cannot be read or breaks its schema.
    #[error("acceptance file {file}: {message}")]
    Accept { file: String, message: String },
    /// An output file that cannot be written.
    #[error("{path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
