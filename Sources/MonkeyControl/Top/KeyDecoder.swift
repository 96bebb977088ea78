/// A key pressed in the full-screen view.
enum Key: Equatable, Sendable {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, space, tab, backspace, escape
    /// Ctrl-C, which arrives as a byte: the terminal is in raw mode.
    case interrupt
    /// Another control key, such as Ctrl-L (0x0C).
    case control(UInt8)
    case character(Character)
}

/// Turns the bytes a terminal sends into keys, however the reads cut them:
/// an escape sequence or a UTF-8 character split across two reads is held
/// until it is complete. A lone ESC cannot be told from the start of a
/// sequence until no more bytes follow; the caller waits `escapeTimeout`
/// and then calls `flush()`.
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// How long an ESC waits for the rest of a sequence, in milliseconds.
    static let escapeTimeout: Int32 = 50

    /// Bytes that never make a key: an escape sequence longer than this is
    /// dropped.
    static let longestSequence = 32

    /// Whether bytes are held back waiting for the rest of a key.
    var hasPending: Bool { !pending.isEmpty }

    /// Adds bytes read from the terminal; returns the keys they complete.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            switch Self.decode(pending, at: index) {
            case .key(let key, let length):
                if let key { keys.append(key) }
                index += length
            case .incomplete:
                pending.removeFirst(index)
                return keys
            }
        }
        pending.removeAll()
        return keys
    }

    /// The keys held back, as they are: a lone ESC is the Escape key, an
    /// unfinished sequence or character is dropped after it.
    mutating func flush() -> [Key] {
        defer { pending.removeAll() }
        guard pending.first == 0x1B else { return [] }
        return [.escape]
    }

    private enum Decoded {
        /// A key (nil: bytes that mean nothing here) and how many bytes it took.
        case key(Key?, length: Int)
        case incomplete
    }

    private static func decode(_ bytes: [UInt8], at index: Int) -> Decoded {
        let byte = bytes[index]
        switch byte {
        case 0x1B: return escape(bytes, at: index)
        case 0x0D, 0x0A: return .key(.enter, length: 1)
        case 0x20: return .key(.space, length: 1)
        case 0x09: return .key(.tab, length: 1)
        case 0x7F, 0x08: return .key(.backspace, length: 1)
        case 0x03: return .key(.interrupt, length: 1)
        case 0x00..<0x20: return .key(.control(byte), length: 1)
        case 0x21..<0x7F: return .key(.character(Character(Unicode.Scalar(byte))), length: 1)
        default: return utf8(bytes, at: index)
        }
    }

    /// ESC alone (for now), ESC [ ... (CSI), ESC O x (SS3), or ESC and a
    /// key (Alt-key: the key, as if Alt were not held).
    private static func escape(_ bytes: [UInt8], at index: Int) -> Decoded {
        guard index + 1 < bytes.count else { return .incomplete }
        let introducer = bytes[index + 1]
        switch introducer {
        case UInt8(ascii: "["):
            return controlSequence(bytes, at: index)
        case UInt8(ascii: "O"):
            guard index + 2 < bytes.count else { return .incomplete }
            return .key(finalKey(bytes[index + 2], parameters: []), length: 3)
        case 0x1B:
            return .key(.escape, length: 1)
        default:
            return .key(.escape, length: 1)
        }
    }

    /// `ESC [ parameters intermediates final`.
    private static func controlSequence(_ bytes: [UInt8], at index: Int) -> Decoded {
        var end = index + 2
        while end < bytes.count {
            let byte = bytes[end]
            if byte >= 0x40 && byte <= 0x7E {
                let parameterBytes = bytes[(index + 2)..<end]
                let parameters = parameterBytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
                    .map { Int(String(decoding: $0, as: UTF8.self)) }
                return .key(finalKey(byte, parameters: parameters), length: end - index + 1)
            }
            guard byte >= 0x20 && byte <= 0x3F else {
                // Not a sequence after all: drop the ESC [ and go on.
                return .key(nil, length: end - index)
            }
            end += 1
            if end - index > longestSequence { return .key(nil, length: end - index) }
        }
        return .incomplete
    }

    /// The key of a sequence's final byte (`A` up, `5~` page up, ...);
    /// modifiers (`1;5A`) are ignored.
    private static func finalKey(_ final: UInt8, parameters: [Int?]) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "M"): return .enter  // keypad Enter in application mode (SS3 M)
        case UInt8(ascii: "~"):
            switch parameters.first ?? nil {
            case 1, 7: return .home
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            default: return nil
            }
        default: return nil
        }
    }

    /// One UTF-8 character of 2 to 4 bytes; an invalid byte is dropped.
    private static func utf8(_ bytes: [UInt8], at index: Int) -> Decoded {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .key(nil, length: 1)
        }
        var available = 1
        while available < length && index + available < bytes.count {
            guard bytes[index + available] & 0xC0 == 0x80 else { return .key(nil, length: available) }
            available += 1
        }
        guard available == length else { return .incomplete }
        let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
        guard let character = text.first, text.unicodeScalars.first != "\u{FFFD}" else {
            return .key(nil, length: length)
        }
        return .key(.character(character), length: length)
    }
}
