import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Free bytes on the file system that holds the database, read at most every `refreshInterval` so a check on every
/// write costs a lock, not a system call.
final class FreeSpaceGauge: Sendable {
    static let refreshInterval: Duration = .milliseconds(250)

    private struct Reading {
        var bytes: Int64
        var at: ContinuousClock.Instant
    }

    let folder: String
    private let last = Mutex<Reading?>(nil)

    init(folder: String) { self.folder = folder }

    /// Bytes an unprivileged writer may still use there, or nil when the file system cannot be asked.
    func freeBytes(fresh: Bool = false) -> Int64? {
        let now = ContinuousClock.now
        if !fresh, let reading = self.last.withLock({ $0 }), now - reading.at < Self.refreshInterval {
            return reading.bytes
        }
        var info = statvfs()
        guard statvfs(self.folder, &info) == 0 else { return nil }
        let bytes = Int64(info.f_bavail) * Int64(info.f_frsize)
        self.last.withLock { $0 = Reading(bytes: bytes, at: now) }
        return bytes
    }
}
