import MonkeyShell

/// One ssh child for one connection of `monkeyctl -H`: its standard input
/// and output are one end of a socket pair, whose other end is what
/// monkeyctl reads and writes (a socket, as the daemon's is, so that a
/// vanished ssh is an error and never a SIGPIPE); its standard error is a
/// pipe, read when the connection ends, to say why it did.
///
/// SIGINT is blocked in the child: a Ctrl-C at the terminal, which reaches
/// the whole foreground process group, is monkeyctl's to act on (`tail -f`
/// ends its stream with a line), not ssh's to die of.
final class SSHTunnel {
    let host: String
    private let pid: Int32
    private let errors: Int32
    /// What ssh (and the far side through it) wrote on standard error, the newest `heardLimit` bytes.
    private var heard: [UInt8] = []
    private(set) var ending: Syscalls.ChildEnding?

    /// How much of ssh's standard error is kept.
    static let heardLimit = 16384
    /// How long ssh is given to end once its connection is shut, before it is ended.
    static let patienceMilliseconds: Int64 = 3000

    /// Starts ssh; returns the tunnel and the connection's end here.
    static func open(_ remote: RemoteHost) throws(ControlFailure) -> (tunnel: SSHTunnel, fd: Int32) {
        let local: Int32
        let far: Int32
        let errorPipe: (read: Int32, write: Int32)
        do {
            (local, far) = try Syscalls.socketPair()
        } catch {
            throw .hostUnreachable(host: remote.destination, said: ["cannot make a socket pair: \(error.reason)"])
        }
        do {
            errorPipe = try Syscalls.pipe()
        } catch {
            Syscalls.close(local)
            Syscalls.close(far)
            throw .hostUnreachable(host: remote.destination, said: ["cannot make a pipe: \(error.reason)"])
        }
        defer {
            Syscalls.close(far)
            Syscalls.close(errorPipe.write)
        }
        do {
            let pid = try Syscalls.spawn(
                remote.arguments, environment: remote.environment, input: far, output: far,
                errors: errorPipe.write, blocked: [Signal.interrupt])
            return (SSHTunnel(host: remote.destination, pid: pid, errors: errorPipe.read), local)
        } catch {
            Syscalls.close(local)
            Syscalls.close(errorPipe.read)
            throw .hostUnreachable(
                host: remote.destination, said: ["cannot start \(remote.arguments[0]): \(error.reason)"])
        }
    }

    private init(host: String, pid: Int32, errors: Int32) {
        self.host = host
        self.pid = pid
        self.errors = errors
    }

    deinit {
        _ = finish()
        Syscalls.close(errors)
    }

    /// Waits for ssh to end (its standard error closes), at most
    /// `patienceMilliseconds`, then ends it (SIGTERM, then SIGKILL) and
    /// reaps it; answers how it ended and what it said, each line once.
    /// The caller has shut the connection first, so that ssh sees its end.
    @discardableResult
    func finish() -> (ending: Syscalls.ChildEnding, said: [String]) {
        if let ending { return (ending, lines) }
        if !drain(forMilliseconds: Self.patienceMilliseconds) {
            Syscalls.signal(pid, Signal.terminate)
            if !drain(forMilliseconds: 1000) { Syscalls.signal(pid, Signal.kill) }
        }
        let ended = Syscalls.reap(pid, hangs: true) ?? .exited(255)
        ending = ended
        return (ended, lines)
    }

    /// The lines ssh wrote on standard error, without empty ones.
    var lines: [String] {
        String(decoding: heard, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// Reads standard error until its end; false if the time ran out first.
    private func drain(forMilliseconds limit: Int64) -> Bool {
        let deadline = Syscalls.monotonicNanoseconds() + UInt64(limit) * 1_000_000
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let now = Syscalls.monotonicNanoseconds()
            guard now < deadline else { return false }
            let wait = Int32(min(Int64((deadline - now) / 1_000_000) + 1, Int64(Int32.max)))
            guard Syscalls.waitReadable([errors], timeoutMilliseconds: wait)[0] else { continue }
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try Syscalls.read(errors, into: raw) }
            }
            switch result {
            case .success(.bytes(let count)):
                heard += buffer[0..<count]
                if heard.count > Self.heardLimit { heard.removeFirst(heard.count - Self.heardLimit) }
            case .success(.wouldBlock): continue
            case .success(.endOfFile), .failure: return true
            }
        }
    }
}
