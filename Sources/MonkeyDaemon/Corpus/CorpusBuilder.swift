import Dispatch
import MonkeyCore

/// Builds corpus runs off the daemon's queue: a START or SET naming a
/// corpus has its files read, normalised and indexed here (about a second
/// for the works of Shakespeare), one build at a time, while the queue
/// goes on serving everyone else. Only values cross: the build in, the
/// run or the refusal out, handed to `done` on this builder's thread.
final class CorpusBuilder: Sendable {
    private let queue = DispatchQueue(label: "monkeyd.corpus", qos: .utility)

    /// Builds `build` from `corpus_dir` (`directory`) and calls `done`
    /// with the run, or with the error the request is answered with.
    func build(
        _ build: CorpusBuild, in directory: String, limits: CorpusLimits,
        done: @escaping @Sendable (Result<BuiltCorpus, ProtocolError>) -> Void
    ) {
        queue.async {
            do throws(CorpusError) {
                let source = try Daemon.readCorpus(build.corpus, in: directory, limits: limits)
                let run = try CorpusRun(source: source, alphabet: build.alphabet, chunk: build.chunk, limits: limits)
                done(.success(BuiltCorpus(run)))
            } catch {
                done(.failure(error.protocolError))
            }
        }
    }
}
