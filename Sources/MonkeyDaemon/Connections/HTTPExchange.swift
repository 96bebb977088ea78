import MonkeyCore

/// What a connection of the metrics listener is doing: it carries one
/// HTTP request and its answer, then the daemon shuts its side down and
/// waits for the client to close (a lingering close, so that the client
/// reads the answer before any reset), all within `deadline`.
struct HTTPExchange {
    enum Stage {
        /// Reading the request's head.
        case receiving(HTTPRequestReader)
        /// Writing the metrics body as the client reads it, in chunks
        /// (HTTP/1.1) or up to the end of the connection (HTTP/1.0).
        case responding(MetricsListing, isChunked: Bool)
        /// The whole answer is queued; once it is sent, the write side is shut.
        case finishing
        /// The write side is shut: what the client still sends is read and
        /// dropped until it closes its side.
        case draining
    }

    var stage: Stage
    /// When the connection is closed, whatever it is doing (accepted at +
    /// `metrics_timeout`; a 408 sent then adds `refusalGrace`).
    var deadline: UInt64

    /// How long a client told 408 has to read it and close before it is cut.
    static let refusalGrace: UInt64 = 1_000_000_000

    var isResponding: Bool {
        if case .responding = stage { return true }
        return false
    }

    /// Whether a read would be acted on, and whether there is more to write
    /// than what is queued (see `Connection.interest`).
    var interest: (mayRead: Bool, moreToWrite: Bool) {
        switch stage {
        case .receiving, .draining: (true, false)
        case .responding: (false, true)
        case .finishing: (false, false)
        }
    }
}
