/// What the metrics listener answers to a request: the metrics at
/// `/metrics` to GET and HEAD, a refusal otherwise. The rules of the one
/// resource the daemon serves over HTTP, apart from how bytes move.
public enum MetricsEndpoint {
    public static let path = "/metrics"
    /// The methods `/metrics` allows, as the `Allow` field lists them.
    public static let allowedMethods = "GET, HEAD"

    public enum Answer: Sendable, Equatable {
        /// `200 OK` with the metrics text (only its head for HEAD).
        case metrics(version: HTTPVersion, isHead: Bool)
        /// A whole refusal: its status, the sentence of its body, and the
        /// `Allow` field for `405`.
        case refusal(HTTPStatus, String, allow: String?, isHead: Bool)
    }

    public static func answer(to request: HTTPRequest) -> Answer {
        let isHead = request.method == "HEAD"
        guard request.path == path else {
            return .refusal(
                .notFound, "only \(path) is served here", allow: nil, isHead: isHead)
        }
        guard request.method == "GET" || isHead else {
            return .refusal(
                .methodNotAllowed, "\(path) answers \(allowedMethods) only", allow: allowedMethods, isHead: false)
        }
        return .metrics(version: request.version, isHead: isHead)
    }

    /// The answer to a request that could not be read.
    public static func answer(to error: HTTPRequestError) -> Answer {
        .refusal(error.status, error.message, allow: nil, isHead: false)
    }
}
