import Testing

@testable import MonkeyCore

/// The metrics listener's request reader, fed as the network delivers:
/// all at once, byte by byte, and in a few pieces.
struct HTTPRequestReaderTests {
    enum Feeding: CaseIterable, Sendable {
        case allAtOnce
        case byteByByte
        case inThrees
    }

    /// Feeds `text`; the request, nil if the head is still incomplete, or the error.
    func read(_ text: String, _ feeding: Feeding, limit: Int = HTTPRequestReader.defaultLimit) -> Result<
        HTTPRequest?, HTTPRequestError
    > {
        var reader = HTTPRequestReader(limit: limit)
        let bytes = Array(text.utf8)
        let size =
            switch feeding {
            case .allAtOnce: max(bytes.count, 1)
            case .byteByByte: 1
            case .inThrees: 3
            }
        var start = 0
        while start < bytes.count {
            let piece = bytes[start..<min(bytes.count, start + size)]
            start += size
            do {
                if let request = try reader.receive(piece) { return .success(request) }
            } catch {
                return .failure(error)
            }
        }
        return .success(nil)
    }

    static let prometheus =
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.42.0\r\n"
        + "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
        + "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n"

    @Test(arguments: Feeding.allCases)
    func aPrometheusScrapeIsRead(feeding: Feeding) throws {
        let request = try #require(try read(Self.prometheus, feeding).get())
        #expect(request.method == "GET" && request.target == "/metrics" && request.version == .http11)
        #expect(request.values(of: "host") == ["127.0.0.1:9464"])
        #expect(request.headers.count == 5)
        #expect(MetricsEndpoint.answer(to: request) == .metrics(version: .http11, isHead: false))
    }

    @Test(arguments: Feeding.allCases)
    func bareLineFeedsAndHTTP10AreRead(feeding: Feeding) throws {
        let request = try #require(try read("\r\nHEAD /metrics?x=1 HTTP/1.0\nA:b\n\n", feeding).get())
        #expect(request.method == "HEAD" && request.version == .http10 && request.path == "/metrics")
        #expect(request.headers.count == 1 && request.headers[0].name == "A" && request.headers[0].value == "b")
        #expect(MetricsEndpoint.answer(to: request) == .metrics(version: .http10, isHead: true))
    }

    @Test(arguments: Feeding.allCases)
    func anIncompleteHeadWaits(feeding: Feeding) throws {
        #expect(try read("GET /metrics HTTP/1.1\r\nHost: x\r\n", feeding).get() == nil)
        #expect(try read("GET /metrics HTTP/1.1\r\nHost: x\r\n\r", feeding).get() == nil)
    }

    @Test(arguments: Feeding.allCases)
    func bytesAfterTheHeadAreNotRead(feeding: Feeding) throws {
        let request = try #require(
            try read("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n", feeding)
                .get())
        #expect(request.target == "/metrics")
    }

    static let refused: [(String, HTTPRequestError)] = [
        ("GET /metrics\r\n\r\n", .malformedRequestLine),
        ("GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET /metrics HTTP/1.1 \r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET /met\u{7F}rics HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET /metrics HTTPS/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET /metrics HTTP/1.10\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", .unsupportedVersion("HTTP/2.0")),
        ("GET /metrics HTTP/0.9\r\n\r\n", .unsupportedVersion("HTTP/0.9")),
        ("GET /metrics HTTP/1.1\r\n\r\n", .badHost(count: 0)),
        ("GET /metrics HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", .badHost(count: 2)),
        ("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", .malformedHeader(line: 1)),
        ("GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", .malformedHeader(line: 2)),
        ("GET /metrics HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n", .malformedHeader(line: 2)),
        ("GET /metrics HTTP/1.1\r\nHost: x\u{1}y\r\n\r\n", .malformedHeader(line: 1)),
        ("GET /metrics HTTP/1.1\r\nHost: x\r\nA: b\rc\r\n\r\n", .invalidByte),
        ("GET /metrics HTTP/1.1\r\nHost: x\u{0}\r\n\r\n", .invalidByte),
        ("\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
    ]

    @Test(arguments: refused)
    func malformedHeadsAreRefused(text: String, error: HTTPRequestError) {
        for feeding in Feeding.allCases {
            #expect(read(text, feeding) == .failure(error), "\(feeding)")
        }
    }

    @Test(arguments: Feeding.allCases)
    func aHeadPastTheLimitIsRefusedAfterAtMostTheLimit(feeding: Feeding) {
        let huge = "GET /metrics HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Filler: yyyyyyyy\r\n", count: 4000)
        #expect(read(huge, feeding, limit: 8192) == .failure(.headTooLarge(limit: 8192)))
        #expect(HTTPRequestError.headTooLarge(limit: 1).status == .requestHeaderFieldsTooLarge)
        // Exactly at the limit is fine.
        let head = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(read(head, feeding, limit: head.utf8.count).map { $0?.target } == .success("/metrics"))
        #expect(read(head, feeding, limit: head.utf8.count - 1) == .failure(.headTooLarge(limit: head.utf8.count - 1)))
    }

    @Test func theReaderKeepsNoMoreThanItsLimit() throws {
        var reader = HTTPRequestReader(limit: 100)
        #expect(throws: HTTPRequestError.headTooLarge(limit: 100)) {
            _ = try reader.receive([UInt8](repeating: 0x41, count: 1 << 20))
        }
        #expect(reader.byteCount <= 101)
    }

    static let routes: [(String, String, MetricsEndpoint.Answer)] = [
        ("GET", "/metrics", .metrics(version: .http11, isHead: false)),
        ("GET", "/metrics?name[]=x", .metrics(version: .http11, isHead: false)),
        ("GET", "http://127.0.0.1:9464/metrics", .metrics(version: .http11, isHead: false)),
        ("HEAD", "/metrics", .metrics(version: .http11, isHead: true)),
        ("GET", "/", .refusal(.notFound, "only /metrics is served here", allow: nil, isHead: false)),
        ("HEAD", "/x", .refusal(.notFound, "only /metrics is served here", allow: nil, isHead: true)),
        ("GET", "/metrics/", .refusal(.notFound, "only /metrics is served here", allow: nil, isHead: false)),
        ("GET", "*", .refusal(.notFound, "only /metrics is served here", allow: nil, isHead: false)),
        (
            "POST", "/metrics",
            .refusal(.methodNotAllowed, "/metrics answers GET, HEAD only", allow: "GET, HEAD", isHead: false)
        ),
        (
            "get", "/metrics",
            .refusal(.methodNotAllowed, "/metrics answers GET, HEAD only", allow: "GET, HEAD", isHead: false)
        ),
    ]

    @Test(arguments: routes)
    func requestsAreRouted(method: String, target: String, answer: MetricsEndpoint.Answer) {
        let request = HTTPRequest(method: method, target: target, version: .http11, headers: [("Host", "x")])
        #expect(MetricsEndpoint.answer(to: request) == answer)
    }
}
