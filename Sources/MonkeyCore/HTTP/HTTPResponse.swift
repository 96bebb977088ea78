/// The statuses the metrics listener answers with: a closed set, so that
/// they can be counted by an index (see `HTTPStatusCounts`).
public enum HTTPStatus: Int, Sendable, CaseIterable {
    case ok = 200
    case badRequest = 400
    case notFound = 404
    case methodNotAllowed = 405
    case requestTimeout = 408
    case requestHeaderFieldsTooLarge = 431
    case serviceUnavailable = 503
    case httpVersionNotSupported = 505

    public var reason: String {
        switch self {
        case .ok: "OK"
        case .badRequest: "Bad Request"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .requestTimeout: "Request Timeout"
        case .requestHeaderFieldsTooLarge: "Request Header Fields Too Large"
        case .serviceUnavailable: "Service Unavailable"
        case .httpVersionNotSupported: "HTTP Version Not Supported"
        }
    }

    /// The status's place in `allCases`, by a switch rather than a search.
    var ordinal: Int {
        switch self {
        case .ok: 0
        case .badRequest: 1
        case .notFound: 2
        case .methodNotAllowed: 3
        case .requestTimeout: 4
        case .requestHeaderFieldsTooLarge: 5
        case .serviceUnavailable: 6
        case .httpVersionNotSupported: 7
        }
    }
}

/// Responses of the metrics listener, by status: the counts behind
/// `monkeyd_http_responses_total{code}`.
public struct HTTPStatusCounts: Sendable, Equatable {
    private var counts = [UInt64](repeating: 0, count: HTTPStatus.allCases.count)

    public init() {}

    public mutating func note(_ status: HTTPStatus) {
        counts[status.ordinal] &+= 1
    }

    public func count(_ status: HTTPStatus) -> UInt64 { counts[status.ordinal] }

    /// One sample per status, zero included.
    public func samples() -> [MetricSample] {
        HTTPStatus.allCases.map { MetricSample(labels: [("code", String($0.rawValue))], value: Double(count($0))) }
    }
}

/// The bytes of the metrics listener's answers: a head, the chunks of a
/// body written as it is generated, and whole refusals. Every answer
/// closes the connection (`Connection: close`): one request per connection.
public enum HTTPResponse {
    /// The head of `200 OK` for the metrics text; the body follows chunked
    /// for HTTP/1.1, or up to the end of the connection for HTTP/1.0.
    /// `date` is an IMF-fixdate (`HTTPDate.imfFixdate`).
    public static func metricsHead(version: HTTPVersion, date: String) -> [UInt8] {
        var fields = [("Content-Type", Exposition.contentType), ("Cache-Control", "no-store")]
        if version.allowsChunked { fields.append(("Transfer-Encoding", "chunked")) }
        return head(.ok, fields: fields, date: date)
    }

    /// A whole answer that is not the metrics: a one-line text saying why
    /// (left out, but for its length, in answer to HEAD).
    public static func refusal(
        _ status: HTTPStatus, _ message: String, date: String, allow: String? = nil, retryAfter: Int? = nil,
        isHead: Bool = false
    ) -> [UInt8] {
        let body = Array("\(status.rawValue) \(status.reason): \(message)\n".utf8)
        var fields = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count))]
        if let allow { fields.append(("Allow", allow)) }
        if let retryAfter { fields.append(("Retry-After", String(retryAfter))) }
        var bytes = head(status, fields: fields, date: date)
        if !isHead { bytes += body }
        return bytes
    }

    private static func head(_ status: HTTPStatus, fields: [(String, String)], date: String) -> [UInt8] {
        var text =
            "HTTP/1.1 \(status.rawValue) \(status.reason)\r\nDate: \(date)\r\nServer: monkeyd/\(Engine.version)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Hexadecimal digits of a chunk's size: room is made for them before
    /// the chunk is written (leading zeros are allowed, RFC 9112 §7.1).
    static let chunkSizeDigits = 8
    /// The largest chunk whose size fits those digits.
    public static let largestChunk = (1 << (4 * chunkSizeDigits)) - 1

    /// Makes room for a chunk's size line; returns where it starts, for `endChunk`.
    public static func beginChunk(in output: inout [UInt8]) -> Int {
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: chunkSizeDigits))
        output.append(contentsOf: [0x0D, 0x0A])
        return start
    }

    /// Ends the chunk begun at `start`: writes its size, or takes the room
    /// back if nothing was written into it (an empty chunk would end the body).
    public static func endChunk(in output: inout [UInt8], from start: Int) {
        let dataStart = start + chunkSizeDigits + 2
        let size = output.count - dataStart
        precondition(size >= 0 && size <= largestChunk, "a chunk larger than its size field")
        guard size > 0 else {
            output.removeSubrange(start...)
            return
        }
        var remaining = size
        for position in stride(from: start + chunkSizeDigits - 1, through: start, by: -1) {
            output[position] = Array("0123456789abcdef".utf8)[remaining & 0xF]
            remaining >>= 4
        }
        output.append(contentsOf: [0x0D, 0x0A])
    }

    /// The last chunk, which ends a chunked body (no trailer fields).
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}

/// Dates as HTTP writes them.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7) for a time in
    /// seconds since the Unix epoch.
    public static func imfFixdate(secondsSinceEpoch seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let monthName = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][
            Int(month - 1)]
        return "\(weekday), \(twoDigits(day)) \(monthName) \(year) \(twoDigits(secondOfDay / 3600)):"
            + "\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    /// The proleptic Gregorian date of a day (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
