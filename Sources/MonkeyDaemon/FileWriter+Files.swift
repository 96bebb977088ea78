import MonkeyCore
import MonkeyShell

/// The file operations behind the store, each durable when it returns.
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
    func replaceEntriesFile(_ name: SessionName, with bytes: [UInt8]) throws(StorageError) {
        try replaceFile(entriesPath(name), with: bytes, what: "the entries of session \(name)")
    }

    /// Appends records after the last good one; the caller syncs them.
    func appendEntries(_ bytes: [UInt8], to files: SessionFiles, of name: SessionName) throws(StorageError) {
        let path = entriesPath(name)
        do throws(SystemError) {
            let fd = try Syscalls.open(path, .writeCreating)
            defer { Syscalls.close(fd) }
            do throws(SystemError) {
                try Syscalls.write(fd, bytes, at: files.length)
                if files.mayHaveGarbage {
                    try Syscalls.truncate(fd, to: files.length + bytes.count)
                    files.mayHaveGarbage = false
                }
            } catch {
                // A partial record must not stay where the next one would follow it.
                files.mayHaveGarbage = true
                try? Syscalls.truncate(fd, to: files.length)
                throw error
            }
        } catch {
            throw StorageError("cannot write \(path): \(error.reason)")
        }
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

    func replaceFile(_ path: String, with bytes: [UInt8], what: String) throws(StorageError) {
        let temporary = path + ".tmp"
        do {
            let fd = try Syscalls.open(temporary, .writeTruncating)
            defer { Syscalls.close(fd) }
            try Syscalls.write(fd, bytes, at: 0)
            try Syscalls.synchronizeData(fd)
            try Syscalls.rename(temporary, to: path)
        } catch {
            _ = try? Syscalls.removeFile(temporary)
            throw StorageError("cannot write \(what) to \(path): \(error.reason)")
        }
    }
}
