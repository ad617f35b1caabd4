import Foundation
import Synchronization
import WotsClient

/// Progress of an upload or download on stderr: a bar redrawn in place when stderr is a terminal, otherwise a plain
/// line at every quarter. One report serves transfer after transfer: a finished one starts the count again.
final class TransferReport: Sendable {
    private let label: String
    private let lastShown = Mutex<Int>(-1)

    init(_ label: String) {
        self.label = label
    }

    var callback: TransferProgress {
        { [self] done, total in self.show(done: done, total: total) }
    }

    private func show(done: Int64, total: Int64) {
        let percent = total > 0 ? Int(done * 100 / total) : 100
        let text = "\(self.label) \(Self.mebibytes(done)) of \(Self.mebibytes(total)) MiB"
        if Terminal.stderrIsTerminal {
            let filled = percent / 5
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled)
            Terminal.progress("[\(bar)] \(percent)% \(text)")
            if done == total { Terminal.endProgress() }
            return
        }
        let quarter = percent / 25
        let due = self.lastShown.withLock { last in
            guard quarter > last else { return false }
            last = done >= total ? -1 : quarter
            return true
        }
        if due { Terminal.note("\(text) (\(percent)%)") }
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }
}
