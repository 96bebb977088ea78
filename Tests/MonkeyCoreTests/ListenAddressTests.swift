import Glibc
import Testing

@testable import MonkeyCore

/// `metrics_listen`: parsed in the core exactly as `inet_pton` would read it.
struct ListenAddressTests {
    static let good: [(String, String)] = [
        ("127.0.0.1:9464", "127.0.0.1:9464"), ("0.0.0.0:0", "0.0.0.0:0"), ("localhost:80", "127.0.0.1:80"),
        ("[::1]:9464", "[::1]:9464"), ("[::]:65535", "[::]:65535"), ("[2001:DB8::1]:1", "[2001:db8::1]:1"),
        ("[::ffff:192.0.2.1]:2", "[::ffff:c000:201]:2"), ("[1:2:3:4:5:6:7:8]:3", "[1:2:3:4:5:6:7:8]:3"),
        ("[1:0:0:2:0:0:0:3]:4", "[1:0:0:2::3]:4"), ("[fe80::]:5", "[fe80::]:5"), ("[0:0:1::]:6", "[0:0:1::]:6"),
        ("[1:2:3:4:5:6:1.2.3.4]:7", "[1:2:3:4:5:6:102:304]:7"),
    ]

    @Test(arguments: good)
    func goodAddressesAreRead(text: String, written: String) throws {
        let address = try ListenAddress.parse(text)
        #expect(address.description == written)
        #expect(try ListenAddress.parse(address.description) == address, "what is written reads back")
    }

    static let bad = [
        "", "9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1:9 4",
        "::1:9464", "[::1]", "[::1:9464", "example.com:80", "*:9464", ":9464", "1.2.3:80", "1.2.3.4.5:80",
        "01.2.3.4:80", "256.0.0.1:80", "[1::2::3]:80", "[1:2:3:4:5:6:7:8:9]:80", "[12345::]:80", "[::g]:80",
        "[fe80::1%eth0]:80", "[1.2.3.4::]:80", "[::1.2.3.4:5]:80", "[1:2:3:4:5:6:7::8]:80", "[]:80",
        "[:::]:80", "[1:::2]:80", "[:1::]:80", "LOCALHOST:80",
    ]

    @Test(arguments: bad)
    func badAddressesAreRefused(text: String) {
        #expect(throws: ListenAddress.Malformed.self) { try ListenAddress.parse(text) }
    }

    /// Every host of the tables above, read by the core and by the C library alike.
    @Test func theCoreAgreesWithInetPton() throws {
        let hosts = Self.good.map(\.0) + Self.bad
        for text in hosts {
            guard let colon = text.lastIndex(of: ":") else { continue }
            var host = String(text[..<colon])
            let isBracketed = host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2
            if isBracketed { host = String(host.dropFirst().dropLast()) }
            var buffer = [UInt8](repeating: 0, count: 16)
            let family = isBracketed ? AF_INET6 : AF_INET
            let accepted = inet_pton(family, host, &buffer) == 1
            let core = isBracketed ? ListenAddress.ipv6(Substring(host)) : ListenAddress.ipv4(Substring(host))
            #expect((core != nil) == accepted, "\(host): core \(String(describing: core)), inet_pton \(accepted)")
            if let core, accepted { #expect(core == Array(buffer.prefix(core.count)), "\(host)") }
        }
    }

    @Test func theConfigurationTakesTheMetricsKeys() throws {
        let configuration = try Configuration.parse(
            "metrics_listen = [::1]:9464\nmax_metrics_clients = 3\nmetrics_timeout = 1.5s\n")
        #expect(
            configuration.metricsListen
                == ListenAddress(family: .ipv6, bytes: [UInt8](repeating: 0, count: 15) + [1], port: 9464))
        #expect(configuration.maximumMetricsClients == 3)
        #expect(configuration.metricsTimeout == Interval(nanoseconds: 1_500_000_000))
        #expect(try Configuration.parse("metrics_listen = \"\"\n").metricsListen == nil)
        #expect(Configuration().metricsListen == nil)
        #expect(throws: Configuration.Problem.self) { try Configuration.parse("metrics_listen = nowhere:80\n") }
        #expect(throws: Configuration.Problem.self) { try Configuration.parse("max_metrics_clients = 0\n") }
    }
}
