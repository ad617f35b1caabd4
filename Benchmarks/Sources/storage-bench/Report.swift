import Foundation

/// The table a run prints.
struct Report: Sendable {
    struct Row: Sendable {
        var measure: String
        var wots: String
        var reference: String = ""
        var ratio: Double? = nil
        var goal: String = ""
        var met: Bool? = nil
    }

    var rows: [Row] = []
    var notes: [String] = []

    func print(title: String) {
        func padded(_ text: String, _ width: Int, right: Bool = false) -> String {
            let gap = String(repeating: " ", count: max(0, width - text.count))
            return right ? gap + text : text + gap
        }
        Swift.print(title)
        Swift.print(
            padded("measure", 44) + padded("Wots", 14, right: true) + "  " + padded("reference (same run)", 28)
                + padded("ratio", 7, right: true) + "  goal"
        )
        for row in self.rows {
            let ratio = row.ratio.map { String(format: "%.2f", $0) } ?? ""
            let verdict = row.met.map { $0 ? "ok" : "MISSED" } ?? ""
            let line =
                padded(row.measure, 44) + padded(row.wots, 14, right: true) + "  " + padded(row.reference, 28)
                + padded(ratio, 7, right: true) + "  " + row.goal + (verdict.isEmpty ? "" : "  " + verdict)
            Swift.print(line.trimmingCharacters(in: .whitespaces))
        }
        for note in self.notes {
            Swift.print("  " + note)
        }
    }
}
