/// Where the metrics listener binds: `metrics_listen = HOST:PORT` in
/// monkeyd.conf, HOST an IPv4 literal (`127.0.0.1`, `0.0.0.0`), an IPv6
/// literal in brackets (`[::1]`, `[::]`) or `localhost` (127.0.0.1, never
/// looked up), PORT 0 to 65535 (0: one the kernel picks, logged at
/// start-up). Parsed here, so that a bad value is a configuration error
/// naming its line; the shell binds the bytes as they are.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable {
        case ipv4
        case ipv6
    }

    public let family: Family
    /// 4 or 16 bytes, in network order.
    public let bytes: [UInt8]
    public let port: UInt16

    public init(family: Family, bytes: [UInt8], port: UInt16) {
        precondition(bytes.count == (family == .ipv4 ? 4 : 16), "an address of the wrong length")
        self.family = family
        self.bytes = bytes
        self.port = port
    }

    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ text: String) throws(Malformed) -> ListenAddress {
        guard let colon = text.lastIndex(of: ":") else {
            throw Malformed(description: "expected HOST:PORT, such as 127.0.0.1:9464, not '\(text)'")
        }
        let host = text[..<colon]
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = UInt16(portText)
        else {
            throw Malformed(description: "the port must be a number from 0 to 65535, not '\(portText)'")
        }
        if host == "localhost" { return ListenAddress(family: .ipv4, bytes: [127, 0, 0, 1], port: port) }
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2 {
            guard let bytes = ipv6(host.dropFirst().dropLast()) else {
                throw Malformed(description: "'\(host)' is not an IPv6 address")
            }
            return ListenAddress(family: .ipv6, bytes: bytes, port: port)
        }
        if host.contains(":") {
            throw Malformed(description: "an IPv6 address goes in brackets, as in [::1]:9464, not '\(text)'")
        }
        guard let bytes = ipv4(host) else {
            throw Malformed(
                description:
                    "'\(host)' is not an IPv4 address, a bracketed IPv6 address or localhost (no name is looked up)"
            )
        }
        return ListenAddress(family: .ipv4, bytes: bytes, port: port)
    }

    /// Four decimal numbers 0 to 255 without leading zeros, dot-separated
    /// (what `inet_pton(AF_INET)` accepts).
    static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 3, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                part.utf8.count == 1 || part.utf8.first != 0x30, let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// Eight groups of 1 to 4 hexadecimal digits, one `::` standing for
    /// one or more groups of zeros, the last 32 bits possibly as an IPv4
    /// address (what `inet_pton(AF_INET6)` accepts; no zone).
    static func ipv6(_ text: Substring) -> [UInt8]? {
        var halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        let isCompressed = halves.count == 2
        if !isCompressed { halves.append("") }
        guard let head = groups(halves[0]), let tail = groups(halves[1]) else { return nil }
        // An IPv4 part can only be the last piece of the whole address.
        let pieces = isCompressed ? [head, tail] : [head]
        for (side, groups) in pieces.enumerated() {
            for (index, piece) in groups.enumerated() {
                guard case .ipv4 = piece else { continue }
                guard side == pieces.count - 1 && index == groups.count - 1 else { return nil }
            }
        }
        var bytes: [UInt8] = []
        for piece in head { bytes += piece.bytes }
        var tailBytes: [UInt8] = []
        for piece in tail { tailBytes += piece.bytes }
        let missing = 16 - bytes.count - tailBytes.count
        guard isCompressed ? missing >= 2 : missing == 0 else { return nil }
        return bytes + [UInt8](repeating: 0, count: missing) + tailBytes
    }

    private enum Piece {
        case group(UInt16)
        case ipv4([UInt8])

        var bytes: [UInt8] {
            switch self {
            case .group(let value): [UInt8(value >> 8), UInt8(value & 0xFF)]
            case .ipv4(let bytes): bytes
            }
        }
    }

    /// The colon-separated groups of one side of `::` (none when empty).
    private static func groups(_ text: String) -> [Piece]? {
        guard !text.isEmpty else { return [] }
        var pieces: [Piece] = []
        for part in text.split(separator: ":", omittingEmptySubsequences: false) {
            if part.contains(".") {
                guard let bytes = ipv4(part) else { return nil }
                pieces.append(.ipv4(bytes))
                continue
            }
            guard !part.isEmpty, part.utf8.count <= 4, let value = UInt16(part, radix: 16),
                part.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) })
            else { return nil }
            pieces.append(.group(value))
        }
        return pieces
    }

    /// `127.0.0.1:9464`, `[::1]:9464`: how logs and man pages write it.
    public var description: String {
        switch family {
        case .ipv4:
            return bytes.map { String($0) }.joined(separator: ".") + ":\(port)"
        case .ipv6:
            return "[\(Self.ipv6Text(bytes))]:\(port)"
        }
    }

    /// RFC 5952 text: lower case, no leading zeros, the longest run of two
    /// or more zero groups (the first of equal runs) written `::`.
    static func ipv6Text(_ bytes: [UInt8]) -> String {
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var best: Range<Int>?
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index >= 2 && end - index > (best?.count ?? 0) { best = index..<end }
            index = end
        }
        let text = groups.map { String($0, radix: 16) }
        guard let best else { return text.joined(separator: ":") }
        return text[..<best.lowerBound].joined(separator: ":") + "::" + text[best.upperBound...].joined(separator: ":")
    }
}
