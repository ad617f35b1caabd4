import Foundation
import GRDB
import WotsCore
import WotsStorage

extension MailboxPipeline {
    /// Which message keys may be written, so that a new (sender, id), nearly every send, is not looked for in the
    /// database: the lookup read pages that every commit took out of the reading connection's cache, and waited for
    /// the one connection that makes it (about a quarter of a stored message's cost over the stream).
    ///
    /// Exact in one direction, which is all that is asked of it: every key in `mailbox_messages` or
    /// `acknowledged_messages` is in `filter` or still held by the pipeline. A key goes in when a transaction takes it,
    /// before its write can commit and long before the pipeline lets go of it; a key removed from the tables stays in
    /// (it is only looked for again). The filter comes from a scan of both tables, started when the pipeline is made
    /// and later by the writer between two transactions, so never while a transaction is being written: a write
    /// committed before the scan's read began is in the scan, and every key taken from the start on is kept for the
    /// new filter as well, so nothing committed after the read began is missed.
    struct KeyFilterState: Sendable {
        /// Keys a filter is sized for at least (1.25 MB); then twice what its scan found.
        static let smallestCapacity = 1 << 20
        /// How long after a failed scan the writer starts another.
        static let retryAfterFailure: Duration = .seconds(60)

        /// Nil until the first scan ends: every key is then looked for.
        var filter: KeyPresenceFilter?
        /// While a scan runs: the hashes of the keys taken since it started.
        var takenDuringScan: [UInt64]?
        var retryAt: ContinuousClock.Instant?
        /// Since the process started: appends looked for in the database, and appends that were not.
        var lookupsMade = 0
        var lookupsSpared = 0

        var statistics: MessageKeyFilterStatistics {
            MessageKeyFilterStatistics(
                keys: self.filter?.count ?? 0,
                bytes: self.filter?.byteCount ?? 0,
                lookupsMade: self.lookupsMade,
                lookupsSpared: self.lookupsSpared
            )
        }

        /// False only when the key is in neither table and no transaction is writing it.
        func mayBeWritten(_ hash: UInt64) -> Bool { self.filter?.mayContain(hash) ?? true }

        /// A transaction takes this key.
        mutating func taken(_ hash: UInt64) {
            self.filter?.insert(hash)
            self.takenDuringScan?.append(hash)
        }

        /// Whether the writer starts a scan now: there is no filter yet or it is overfull, none runs, and none failed
        /// within `retryAfterFailure`. Only between two transactions, so that none is being written while it starts.
        mutating func startsScan(at now: ContinuousClock.Instant) -> Bool {
            guard self.takenDuringScan == nil, self.filter?.isOverfull ?? true, self.retryAt.map({ now >= $0 }) ?? true
            else { return false }
            self.takenDuringScan = []
            return true
        }

        /// The scan's filter with every key taken since the scan started, in place of the old one.
        mutating func install(_ scanned: KeyPresenceFilter) {
            guard let taken = self.takenDuringScan else { return }
            var filter = scanned
            for hash in taken { filter.insert(hash) }
            self.filter = filter
            self.takenDuringScan = nil
            self.retryAt = nil
        }

        /// The scan failed: the old filter (given every key taken meanwhile) stays, and a new scan waits a while.
        mutating func scanFailed(at now: ContinuousClock.Instant) {
            self.takenDuringScan = nil
            self.retryAt = now + Self.retryAfterFailure
        }

        /// A filter for `count` keys, with room for as many again.
        static func emptyFilter(for count: Int) -> KeyPresenceFilter {
            KeyPresenceFilter(capacity: max(Self.smallestCapacity, 2 * count))
        }

        /// The filter of every key in both tables, read in one transaction: counted first and sized for the count,
        /// then filled straight from the rows, so the scan holds no more memory than the filter it gives.
        static func scan(_ db: Database) throws -> KeyPresenceFilter {
            let tables = ["mailbox_messages", "acknowledged_messages"]
            let count = try tables.reduce(0) { sum, table in
                sum + (try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0)
            }
            var filter = Self.emptyFilter(for: count)
            for table in tables {
                let rows = try Row.fetchCursor(db, sql: "SELECT sender, message_id FROM \(table)")
                while let row = try rows.next() {
                    let hash = try row.withUnsafeData(atIndex: 0) { sender in
                        try row.withUnsafeData(atIndex: 1) { id in
                            (sender ?? Data()).withUnsafeBytes { sender in
                                (id ?? Data()).withUnsafeBytes { id in KeyPresenceFilter.hash(sender: sender, id: id) }
                            }
                        }
                    }
                    filter.insert(hash)
                }
            }
            return filter
        }
    }
}
