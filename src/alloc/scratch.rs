//! Working storage the allocator's decisions reuse from one request to the next, so that
//! a request allocates nothing on the host once the buffers have grown to the largest
//! size a trace needs (stridekit's placement search, the chunk plan of a mapping).
//! What the buffers hold means something only inside the call that fills them.

/// An unmapped stretch a request lands on: the bytes it must map there, and the room
/// (the unmapped block's size) a chunk mapped there may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gap {
    pub need: u64,
    pub room: u64,
}

/// A whole chunk inside a free mapped block (a candidate to move).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Idle {
    pub ptr: u64,
    pub size: u64,
}

/// The reused buffers.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The idle chunks a placement may move, by address.
    pub idle: Vec<Idle>,
    /// A copy of `idle` that a trial placement takes chunks from.
    pub trial: Vec<Idle>,
    /// The chunks chosen for one gap (trial) or for every gap (the move itself).
    pub chosen: Vec<Idle>,
    /// The gaps of the candidate placement being scored.
    pub gaps: Vec<Gap>,
    /// The gaps of the best placement so far (after the search: the placement's gaps).
    pub best_gaps: Vec<Gap>,
    /// The chunks one mapping maps: (size, whether it is a spare).
    pub plan: Vec<(u64, bool)>,
}
