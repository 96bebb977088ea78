import MonkeyCore
import MonkeyShell

/// A state directory of the first release: one state file per session
/// (`<name>.state`), entries files and a journal of epoch 0. Start-up reads
/// its state files once, writes the snapshot, and removes them.
extension FileWriter {
    /// The sessions the state files hold; a damaged one is set aside (its
    /// files renamed `.damaged`) without stopping the others.
    func readStateFilesOfTheFirstRelease(_ names: [String], report: (LogPriority, String) -> Void) -> ControlState {
        var state = ControlState()
        for file in names.sorted() where file.hasSuffix(".state") {
            let stem = String(file.dropLast(".state".count))
            let path = "\(directory)/\(file)"
            guard let name = SessionName(stem) else {
                report(.warning, "ignoring \(path): '\(stem)' is not a valid session name")
                continue
            }
            do {
                guard let bytes = try Syscalls.readWholeFile(path, limit: 16 << 20) else { continue }
                state.apply(.session(try StateFile.decode(bytes, name: name)))
            } catch let error as SystemError {
                setAside(name, because: "cannot read \(path): \(error.reason)", report: report)
            } catch {
                setAside(name, because: "\(path) is damaged: \(error)", report: report)
            }
        }
        return state
    }

    /// Once the snapshot holds what they held.
    func removeStateFilesOfTheFirstRelease(_ names: [String], report: (LogPriority, String) -> Void) {
        var removed = 0
        for file in names where file.hasSuffix(".state") {
            if (try? Syscalls.removeFile("\(directory)/\(file)")) == true { removed += 1 }
        }
        if removed > 0 {
            report(.notice, "the snapshot of \(directory) now holds the \(removed) state files of the first release")
        }
    }

    /// Moves a session's files aside so that it neither loads nor blocks a
    /// new session of the same name; the operator can inspect them.
    private func setAside(_ name: SessionName, because reason: String, report: (LogPriority, String) -> Void) {
        var moved: [String] = []
        for path in ["\(directory)/\(name.text).state", entriesPath(name)] {
            if (try? AppendOnlyFile.setAside(path, suffix: ".damaged")) != nil { moved.append(path + ".damaged") }
        }
        report(
            .error,
            "session \(name) could not be loaded: \(reason); "
                + (moved.isEmpty
                    ? "its files were left in place" : "moved its files to \(moved.joined(separator: ", "))"))
    }
}
