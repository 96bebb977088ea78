@testable import MonkeyCore

/// An entry's record as entries files of format versions 1 and 2 (and the
/// journal's entry records of version 1) hold it, built here from the
/// layout monkeyd(8) documents: the daemon reads them, never writes them.
func version2Record(_ entry: Entry) -> [UInt8] {
    RecordLayoutTests.framed(
        RecordLayoutTests.littleEndian(entry.id) + RecordLayoutTests.littleEndian(entry.number)
            + [entry.isHit ? 1 : 0] + Array(entry.text.utf8))
}
