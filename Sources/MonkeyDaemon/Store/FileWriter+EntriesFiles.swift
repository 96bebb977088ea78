import MonkeyCore
import MonkeyShell

/// The sessions' entries files, and the directory they lie in.
extension FileWriter {
    /// Starts the entries file afresh for `epoch`: its preamble only.
    func writeFreshEntriesFile(_ name: SessionName, epoch: UInt64) throws(StorageError) {
        let path = entriesPath(name)
        do {
            let fd = try Syscalls.open(path, .writeTruncating)
            defer { Syscalls.close(fd) }
            try Syscalls.write(fd, EntryFile.preamble(epoch: epoch), at: 0)
        } catch {
            throw StorageError("cannot write \(path): \(error.reason)")
        }
    }

    /// Replaces the entries file with a compacted one (not yet syncing the directory).
    func replaceEntriesFile(_ files: SessionFiles, of name: SessionName, with bytes: [UInt8]) throws(StorageError) {
        try AppendOnlyFile.replace(
            at: entriesPath(name), with: bytes, what: "the entries of session \(name)", end: &files.end)
    }

    func syncDirectory() throws(StorageError) {
        try onDirectory("sync the directory", Syscalls.synchronize)
    }

    /// One `syncfs` for every file written since the last.
    func syncFileSystem() throws(StorageError) {
        try onDirectory("sync the file system of", Syscalls.synchronizeFileSystem)
    }

    /// Opens the state directory, runs `operation` on it and closes it;
    /// `what` names the operation in the error ("cannot <what> <directory>").
    private func onDirectory(_ what: String, _ operation: (Int32) throws(SystemError) -> Void)
        throws(StorageError)
    {
        do {
            let fd = try Syscalls.open(directory, .directory)
            defer { Syscalls.close(fd) }
            try operation(fd)
        } catch {
            throw StorageError("cannot \(what) \(directory): \(error.reason)")
        }
    }
}
