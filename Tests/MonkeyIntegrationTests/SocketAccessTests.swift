import Foundation
import Glibc
import Testing

/// The socket the daemon creates: its mode and group come from the
/// configuration, whatever the umask it was started with.
@Suite("Socket access")
struct SocketAccessTests {
    static let modes: [(configured: String, expected: mode_t)] = [("0660", 0o660), ("0600", 0o600), ("0666", 0o666)]

    @Test(arguments: modes)
    func modeAndGroupFromTheConfiguration(mode: (configured: String, expected: mode_t)) throws {
        // "daemon" (gid 1) exists on every Debian system; the tests run as root.
        let daemon = try DaemonProcess(
            configuration: "socket_mode = \(mode.configured)\nsocket_group = daemon\n",
            launcher: ["/bin/sh", "-c", "umask 0; exec \"$0\" \"$@\""])
        var info = stat()
        #expect(lstat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o7777 == mode.expected)
        #expect(info.st_gid == 1)
        #expect(try daemon.request("PING") == ["OK pong"])
    }

    @Test func aGroupThatCannotBeGivenLeavesNoGroupAccess() throws {
        guard geteuid() == 0 else { return }
        // As nobody, chown to group "daemon" fails: the group bits are dropped.
        // The launcher gives nobody the test directory and the notify socket
        // ($2 is the socket path).
        let asNobody = """
            cd "${2%/*}" && chown 65534:65534 . && chmod 666 notify.sock &&
            exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$0" "$@"
            """
        let daemon = try DaemonProcess(
            configuration: "socket_mode = 0660\nsocket_group = daemon\n", launcher: ["/bin/sh", "-c", asNobody])
        var info = stat()
        #expect(lstat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o600)
        #expect(info.st_uid == 65534)
    }

    @Test func membershipThroughTheThreeHundredthSupplementaryGroupCounts() throws {
        guard geteuid() == 0 else { return }
        let daemon = try DaemonProcess(configuration: "socket_mode = 0666\nsocket_group = nogroup\n")
        // The kernel sorts the groups, so nogroup (65534) comes after 300 others.
        let groups = (1000..<1300).map(String.init).joined(separator: ",") + ",65534"
        let member = try runClient(
            ["--reuid=65533", "--regid=1000", "--groups=\(groups)"], ["START s interval=1h"], daemon.socketPath)
        #expect(member == ["OK started s"])
        let stranger = try runClient(
            ["--reuid=65533", "--regid=1000", "--groups=1000,1001"], ["STOP s"], daemon.socketPath)
        #expect(stranger.first?.hasPrefix("ERR denied STOP changes state and uid 65533 may not") == true)
    }
}

/// Runs a Python client under other credentials (`setpriv` options) and
/// returns the response lines to `requests`.
func runClient(_ credentials: [String], _ requests: [String], _ socketPath: String) throws -> [String] {
    let client = Process()
    client.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    client.arguments =
        credentials + [
            "/usr/bin/python3", "-c",
            """
            import socket,sys
            s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rwb')
            for line in sys.argv[2:]:
                f.write(line.encode()+b'\\n'); f.flush()
                while True:
                    r=f.readline().decode()
                    print(r, end='')
                    if not r or r.startswith('OK') or r.startswith('ERR'): break
            """, socketPath,
        ] + requests
    let output = Pipe()
    client.standardOutput = output
    try client.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    client.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}
