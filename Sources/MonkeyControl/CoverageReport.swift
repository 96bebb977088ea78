import MonkeyCore

/// `monkeyctl coverage` for people: the `work` records of COVERAGE as a
/// table with bars, or the `segment` records of one work as its text.
/// Pure: records in, lines out.
enum CoverageReport {
    /// The width of a bar, in cells.
    static let barWidth = 20

    /// `name  characters  covered  percent  bar`, a header and one row per work.
    static func table(_ records: [Record]) -> [String] {
        let rows = records.filter { $0.type == "work" }.map { record -> [String] in
            let characters = Int(record.value("chars") ?? "") ?? 0
            let covered = Int(record.value("covered") ?? "") ?? 0
            return [
                Visible.escaped(record.value("name") ?? "?"), HumanNumbers.count(text: record.value("chars") ?? "?"),
                HumanNumbers.count(text: record.value("covered") ?? "?"), percent(covered, of: characters),
                bar(covered, of: characters),
            ]
        }
        let header = ["work", "characters", "covered", "percent", ""]
        let all = [header] + rows
        let widths = (0..<header.count).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // The name to the left, the figures to the right.
                return column == 0 || column == row.count - 1 ? cell + padding : padding + cell
            }.joined(separator: "  ").trimmingTrailingBlanks()
        }
    }

    /// CORPORA's `corpus` records: `name  works  characters`, or the reason
    /// a directory is no corpus.
    static func corpora(_ records: [Record]) -> [String] {
        let rows = records.filter { $0.type == "corpus" }.map { record -> [String] in
            let name = Visible.escaped(record.value("name") ?? "?")
            if let error = record.value("error") { return [name, "-", "-", "not a corpus: " + Visible.escaped(error)] }
            return [
                name, HumanNumbers.count(text: record.value("works") ?? "?"),
                HumanNumbers.count(text: record.value("characters") ?? "?"), "",
            ]
        }
        let all = [["corpus", "works", "characters", ""]] + rows
        let widths = (0..<4).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == 3 ? cell + padding : padding + cell
            }.joined(separator: "  ").trimmingTrailingBlanks()
        }
    }

    /// `83.3 %`: rounded down, so that only a work covered whole reads 100 %.
    static func percent(_ covered: Int, of characters: Int) -> String {
        guard characters > 0 else { return "0.0 %" }
        let tenths = covered * 1000 / characters
        return "\(tenths / 10).\(tenths % 10) %"
    }

    /// `[########............]`: a cell is filled once its share is covered.
    static func bar(_ covered: Int, of characters: Int) -> String {
        let filled = characters > 0 ? covered * barWidth / characters : 0
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
    }

    /// The work's text from its segments: covered characters bold in colour
    /// (`usesColor`), or else every uncovered character as `_`.
    static func text(_ records: [Record], usesColor: Bool) -> String {
        var text = ""
        for record in records where record.type == "segment" {
            let segment = record.value("text") ?? ""
            let isCovered = record.value("covered") == "yes"
            if usesColor {
                text += isCovered ? "\u{1B}[1;32m" + Visible.escaped(segment) + "\u{1B}[0m" : Visible.escaped(segment)
            } else {
                text += isCovered ? Visible.escaped(segment) : String(repeating: "_", count: segment.count)
            }
        }
        return text
    }
}

extension String {
    fileprivate func trimmingTrailingBlanks() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
