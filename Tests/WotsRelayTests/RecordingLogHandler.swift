import Logging
import Synchronization

/// Keeps every log line at or above its level, so a test can say what a relay logged.
struct RecordingLogHandler: LogHandler {
    final class Lines: Sendable {
        private let lines = Mutex<[(level: Logger.Level, message: String)]>([])

        func append(_ level: Logger.Level, _ message: String) { self.lines.withLock { $0.append((level, message)) } }

        func messages(atLeast level: Logger.Level) -> [String] {
            self.lines.withLock { $0.filter { $0.level >= level }.map(\.message) }
        }
    }

    let lines: Lines
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.lines.append(event.level, "\(event.message) \(event.metadata ?? [:])")
    }
}
