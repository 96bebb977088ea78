import Foundation
import Testing

/// `status` and `top` write the same figures the same way: counts in
/// groups of three digits, large numbers as `2.6e16`, chances in percent.
@Suite("monkeyctl numbers")
struct MonkeyctlNumbersTests {
    @Test func statusAndTopWriteTheSameFiguresAlike() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.request(
            #"START hamlet target="to be or not to be" monkeys=24 alphabet="abcdefghijklmnopqrstuvwxyz " interval=1ms"#)
        #expect(try eventually { try Int(fields(daemon.request("STATUS hamlet")[0])["typed"] ?? "0") ?? 0 >= 1_000 })
        _ = try daemon.request("STOP hamlet")
        _ = try daemon.request("SET hamlet interval=100ms")
        let typed = try #require(Int(fields(daemon.request("STATUS hamlet")[0])["typed"] ?? ""))
        let grouped = "\(typed / 1000),\(String(format: "%03d", typed % 1000))"
        let monkeyctl = MonkeyctlClient(daemon)
        let status = try #require(try monkeyctl.run("status", "hamlet").lines.first)
        #expect(status.contains("typed \(grouped), \(grouped) kept, 0 hits"), "\(status)")
        #expect(status.contains("1 in 8.3e24 · every ~2.6e16 years · chance so far <0.01 %"), "\(status)")
        let top = try monkeyctl.run("top")
        let row = try #require(top.lines.first { $0.hasPrefix("hamlet ") }, "\(top)")
        let cells = row.split(separator: " ").map(String.init)
        #expect(cells.contains(grouped), "\(row)")
        #expect(row.contains("<0.01 % ~2.6e16 y"), "\(row)")
        #expect(top.lines.first?.contains("typed \(grouped)") == true, "\(top)")
    }
}
