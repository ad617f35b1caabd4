import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Free bytes on the file system that holds the database, read at most every `refreshInterval` so a check on every
/// write costs a lock, not a system call; near the reserve every check reads the file system, so a burst of writes
/// cannot overshoot it by what it wrote since the last reading.
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
    /// - Parameters:
    ///   - fresh: read the file system now.
    ///   - freshBelow: read it now too when the last reading was below this many bytes.
    func freeBytes(fresh: Bool = false, freshBelow threshold: Int64 = 0) -> Int64? {
        let now = ContinuousClock.now
        if !fresh, let reading = self.last.withLock({ $0 }), now - reading.at < Self.refreshInterval,
            reading.bytes >= threshold
        {
            return reading.bytes
        }
        var info = statvfs()
        guard statvfs(self.folder, &info) == 0 else { return nil }
        let bytes = Int64(info.f_bavail) * Int64(info.f_frsize)
        self.last.withLock { $0 = Reading(bytes: bytes, at: now) }
        return bytes
    }

}
