/// Reads the head of one HTTP/1.x request from bytes as they arrive: the
/// request line and header fields up to the empty line, at most `limit`
/// bytes, then the request or a typed refusal (RFC 9112). Bytes after the
/// head (a body, a pipelined request) are not read: the daemon answers one
/// request per connection and closes it.
public struct HTTPRequestReader: Sendable, Equatable {
    /// The default bound on a head: far above what Prometheus or curl send
    /// (a few hundred bytes), far below what would cost memory.
    public static let defaultLimit = 8192

    public let limit: Int
    private var head: [UInt8] = []
    /// Where the search for the empty line resumes.
    private var scanned = 0

    public init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// Bytes kept so far.
    public var byteCount: Int { head.count }

    /// Takes more bytes; returns the request once its head is complete,
    /// nil while more is needed, or throws when it cannot be answered.
    /// Once it returned or threw, it must not be called again.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(HTTPRequestError) -> HTTPRequest? {
        // Never keep more than the limit: a flood is refused after at most that much.
        let room = limit - head.count
        head.append(contentsOf: bytes.prefix(max(0, room + 1)))
        guard let end = endOfHead() else {
            if head.count > limit { throw .headTooLarge(limit: limit) }
            return nil
        }
        guard end <= limit else { throw .headTooLarge(limit: limit) }
        return try Self.parse(head[..<end])
    }

    /// The index just past the empty line that ends the head, if it has
    /// arrived. Lines end in CRLF or, leniently, a bare LF (RFC 9112 §2.2).
    private mutating func endOfHead() -> Int? {
        var index = scanned
        while index < head.count {
            if head[index] == 0x0A {
                if index + 1 < head.count && head[index + 1] == 0x0A { return index + 2 }
                if index + 2 < head.count && head[index + 1] == 0x0D && head[index + 2] == 0x0A { return index + 3 }
                if index + 2 >= head.count {
                    // The rest may complete an empty line: look here again.
                    scanned = index
                    return nil
                }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// Parses a complete head (ending with its empty line).
    static func parse(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> HTTPRequest {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == 0x0A {
            var line = bytes[start..<index]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            start = index + 1
        }
        // A server SHOULD ignore empty lines before the request line (RFC 9112 §2.2).
        while lines.first?.isEmpty == true { lines.removeFirst() }
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw .malformedRequestLine }
        for line in lines where line.contains(0) || line.contains(0x0D) { throw .invalidByte }
        let (method, target, version) = try requestLineParts(requestLine)
        var headers: [(name: String, value: String)] = []
        for (number, line) in lines.dropFirst().enumerated() {
            headers.append(try header(line, number: number + 1))
        }
        let request = HTTPRequest(method: method, target: target, version: version, headers: headers)
        if version == .http11 {
            let hosts = request.values(of: "Host").count
            guard hosts == 1 else { throw .badHost(count: hosts) }
        }
        return request
    }

    private static func requestLineParts(_ line: ArraySlice<UInt8>) throws(HTTPRequestError)
        -> (String, String, HTTPVersion)
    {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte), !parts[1].isEmpty,
            parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .malformedRequestLine }
        let version = String(decoding: parts[2], as: UTF8.self)
        let digits = Array(parts[2])
        guard digits.count == 8, version.hasPrefix("HTTP/"), digits[6] == UInt8(ascii: "."),
            isDigit(digits[5]), isDigit(digits[7])
        else { throw .malformedRequestLine }
        guard digits[5] == UInt8(ascii: "1") else { throw .unsupportedVersion(version) }
        return (
            String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
            digits[7] == UInt8(ascii: "0") ? .http10 : .http11
        )
    }

    /// `field-name ":" OWS field-value OWS`; no blank before the colon,
    /// no folded line (RFC 9112 §5.1, §5.2).
    private static func header(_ line: ArraySlice<UInt8>, number: Int) throws(HTTPRequestError)
        -> (name: String, value: String)
    {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedHeader(line: number) }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .malformedHeader(line: number) }
        var value = line[(colon + 1)...]
        while let first = value.first, isBlank(first) { value = value.dropFirst() }
        while let last = value.last, isBlank(last) { value = value.dropLast() }
        // Visible characters, blanks and obs-text; no other control character.
        guard value.allSatisfy({ isBlank($0) || ($0 > 0x20 && $0 != 0x7F) }) else {
            throw .malformedHeader(line: number)
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
