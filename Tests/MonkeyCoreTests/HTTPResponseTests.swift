import Testing

@testable import MonkeyCore

/// The bytes the metrics listener answers with.
struct HTTPResponseTests {
    @Test func theMetricsHeadSaysChunkedOnlyToHTTP11() {
        let date = "Tue, 01 Dec 2026 00:00:00 GMT"
        let head11 = String(decoding: HTTPResponse.metricsHead(version: .http11, date: date), as: UTF8.self)
        #expect(
            head11 == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nServer: monkeyd/\(Engine.version)\r\n"
                + "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nCache-Control: no-store\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        let head10 = String(decoding: HTTPResponse.metricsHead(version: .http10, date: date), as: UTF8.self)
        #expect(!head10.contains("Transfer-Encoding") && head10.hasSuffix("Connection: close\r\n\r\n"))
    }

    @Test func aRefusalHasItsLengthAndFields() {
        let text = String(
            decoding: HTTPResponse.refusal(.methodNotAllowed, "no", date: "D", allow: "GET, HEAD"), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(text.contains("\r\nAllow: GET, HEAD\r\n") && text.contains("\r\nContent-Length: 27\r\n"))
        #expect(text.hasSuffix("\r\n\r\n405 Method Not Allowed: no\n"))
        let head = String(decoding: HTTPResponse.refusal(.notFound, "no", date: "D", isHead: true), as: UTF8.self)
        #expect(head.hasSuffix("Connection: close\r\n\r\n") && head.contains("Content-Length: 18"))
        let busy = String(
            decoding: HTTPResponse.refusal(.serviceUnavailable, "b", date: "D", retryAfter: 1), as: UTF8.self)
        #expect(busy.contains("\r\nRetry-After: 1\r\n"))
    }

    /// Chunks decode back to the body, however the body was cut.
    @Test(arguments: [[1], [5, 0, 3], [0], [300, 70_000, 1]])
    func chunksFrameTheBody(sizes: [Int]) throws {
        var output: [UInt8] = Array("head".utf8)
        var body: [UInt8] = []
        var random = WyRand(seed: 7)
        for size in sizes {
            let start = HTTPResponse.beginChunk(in: &output)
            let piece = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            output += piece
            body += piece
            HTTPResponse.endChunk(in: &output, from: start)
        }
        output += HTTPResponse.lastChunk
        #expect(try Self.dechunk(Array(output.dropFirst(4))) == body)
    }

    /// A strict reader of a chunked body (RFC 9112 §7.1), as a client reads it.
    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let end = bytes[index...].firstIndex(of: 0x0D), bytes[end + 1] == 0x0A else {
                throw TestError("no chunk size line")
            }
            let size = try #require(Int(String(decoding: bytes[index..<end], as: UTF8.self), radix: 16))
            index = end + 2
            if size == 0 {
                #expect(Array(bytes[index...]) == [0x0D, 0x0A], "nothing follows the last chunk")
                return body
            }
            body += bytes[index..<(index + size)]
            index += size
            #expect(bytes[index] == 0x0D && bytes[index + 1] == 0x0A)
            index += 2
        }
    }

    struct TestError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    @Test(arguments: [
        (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_796_083_199, "Mon, 30 Nov 2026 23:59:59 GMT"),
        (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"), (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func datesAreIMFFixdates(seconds: Int64, text: String) {
        #expect(HTTPDate.imfFixdate(secondsSinceEpoch: seconds) == text)
    }

    @Test func statusCountsAreByCode() {
        var counts = HTTPStatusCounts()
        counts.note(.ok)
        counts.note(.ok)
        counts.note(.serviceUnavailable)
        for (index, status) in HTTPStatus.allCases.enumerated() { #expect(status.ordinal == index) }
        let samples = counts.samples()
        #expect(samples.count == HTTPStatus.allCases.count)
        #expect(samples.first { $0.labels[0].value == "200" }?.value == 2)
        #expect(samples.first { $0.labels[0].value == "503" }?.value == 1)
        #expect(samples.first { $0.labels[0].value == "404" }?.value == 0)
    }
}
