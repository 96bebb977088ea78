/// One HTTP/1.x request head, as the metrics listener reads it: the
/// daemon answers one request per connection and never reads a body.
public struct HTTPRequest: Sendable, Equatable {
    /// As sent; methods are case-sensitive (`GET`, not `get`).
    public let method: String
    /// The request target as sent: `/metrics?x=1`, `http://host/metrics`, `*`.
    public let target: String
    public let version: HTTPVersion
    /// The header fields in order, names as sent, values without the
    /// blanks around them.
    public let headers: [(name: String, value: String)]

    public init(method: String, target: String, version: HTTPVersion, headers: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The path of the target, without its query: the origin form's, or
    /// an absolute form's (`http://host:port/path`); nil for another form.
    public var path: String? {
        var target = Substring(target)
        if let query = target.firstIndex(of: "?") { target = target[..<query] }
        if target.hasPrefix("/") { return String(target) }
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            let authority = target.dropFirst(scheme.count)
            guard let slash = authority.firstIndex(of: "/") else { return "/" }
            return String(authority[slash...])
        }
        return nil
    }

    /// The values of the header fields named `name` (case-insensitive).
    public func values(of name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    public static func == (left: HTTPRequest, right: HTTPRequest) -> Bool {
        left.method == right.method && left.target == right.target && left.version == right.version
            && left.headers.map(\.name) == right.headers.map(\.name)
            && left.headers.map(\.value) == right.headers.map(\.value)
    }
}

/// The HTTP/1 versions a request may name. A later 1.x is read as 1.1
/// (RFC 9110 §6.2: minor versions are compatible); HTTP/2 and later do not
/// use this syntax at all.
public enum HTTPVersion: Sendable, Equatable {
    case http10
    case http11

    /// `Transfer-Encoding: chunked` may be sent (HTTP/1.1 only).
    public var allowsChunked: Bool { self == .http11 }
}

/// Why a request head cannot be answered as asked: a typed refusal with a
/// sentence for people, and the status it is answered with.
public enum HTTPRequestError: Error, Sendable, Equatable {
    /// The head grew past `limit` bytes before its empty line.
    case headTooLarge(limit: Int)
    /// The request line is not `METHOD SP target SP HTTP/x.y`.
    case malformedRequestLine
    /// The version is not HTTP/1.x (`HTTP/2.0`, `HTTP/3.0`).
    case unsupportedVersion(String)
    /// A header line is not `name: value` (blanks before the colon,
    /// line folding, a control character).
    case malformedHeader(line: Int)
    /// HTTP/1.1 without exactly one Host field (RFC 9112 §3.2).
    case badHost(count: Int)
    /// A NUL byte, or a CR that does not end a line.
    case invalidByte

    public var status: HTTPStatus {
        switch self {
        case .headTooLarge: .requestHeaderFieldsTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .malformedRequestLine, .malformedHeader, .badHost, .invalidByte: .badRequest
        }
    }

    public var message: String {
        switch self {
        case .headTooLarge(let limit): "the request's head is larger than \(limit) bytes"
        case .malformedRequestLine: "the request line is not METHOD TARGET HTTP/1.1"
        case .unsupportedVersion(let version): "\(version) is not supported; this server speaks HTTP/1.1"
        case .malformedHeader(let line): "header line \(line) is not 'name: value'"
        case .badHost(let count): "an HTTP/1.1 request needs exactly one Host header field, not \(count)"
        case .invalidByte: "the request contains a NUL byte or a stray carriage return"
        }
    }
}
