import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import WotsCore
import WotsStorage

/// Periodically removes expired challenges and sessions, deletes messages whose envelope's `expiresAt` has come
/// and group message bodies whose `expiresAt` has come (silently: their senders asked for it), expires messages older than the retention period (leaving their senders a
/// notice), and forgets old acknowledgements and notices.
struct Sweeper: Service {
    let storage: RelayStorage
    let configuration: RelayConfiguration
    let metrics: RelayMetrics
    let clock: RelayClock
    let logger: Logger

    /// What one sweep removed.
    struct Report: Sendable, Hashable {
        var authentication = 0
        var expiredMessages = 0
        /// Group message bodies (with every slot left) older than the retention period.
        var expiredGroupMessages = 0
        /// Messages deleted at their envelope's `expiresAt`.
        var vanishedMessages = 0
        /// Group message bodies (with every slot left) deleted at their `expiresAt`.
        var vanishedGroupMessages = 0
        var acknowledgements = 0
        var notices = 0
        var blobs = 0
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await self.clock.sleep(self.configuration.sweepInterval)
                    await self.sweepOnce(now: self.clock.date())
                }
            }
        } catch is CancellationError {
            return
        }
    }

    /// Sweeps as of `now` (tests pass a later time instead of waiting). Failures are logged; the next sweep retries.
    @discardableResult
    func sweepOnce(now: Date) async -> Report {
        var report = Report()
        do {
            report.authentication = try await self.storage.authentication.sweepExpired(now: now)
            report.vanishedMessages = try await self.deleteInBatches {
                try await self.storage.mailboxes.deleteExpired(at: now, limit: $0)
            }
            let groups = try self.storage.groupMailboxes()
            report.vanishedGroupMessages = try await self.deleteInBatches {
                try await groups.deleteExpiredGroupMessages(at: now, limit: $0)
            }
            report.expiredMessages = try await self.expireMessages(now: now)
            let retentionCutoff = now.addingTimeInterval(-self.configuration.messageRetention.seconds)
            report.expiredGroupMessages = try await self.deleteInBatches {
                try await groups.expireGroupMessages(receivedBefore: retentionCutoff, limit: $0)
            }
            let acknowledgementCutoff = now.addingTimeInterval(-self.configuration.acknowledgementMemory.seconds)
            report.acknowledgements = try await self.storage.mailboxes.forgetAcknowledgements(
                before: acknowledgementCutoff
            )
            report.acknowledgements += try await groups.forgetAcknowledgedGroupMessages(before: acknowledgementCutoff)
            report.notices = try await self.storage.mailboxes.forgetExpiryNotices(
                before: now.addingTimeInterval(-self.configuration.expiryNoticeLifetime.seconds)
            )
            report.blobs = try await self.storage.blobs.deleteExpired(now: now)
            self.metrics.blobBytesStored.record(try await self.storage.blobs.storedBytes())
        } catch {
            self.logger.warning("sweep failed", metadata: ["error": "\(error)"])
        }
        if report != Report() {
            self.logger.info(
                "swept",
                metadata: [
                    "authentication": "\(report.authentication)", "expired": "\(report.expiredMessages)",
                    "expiredGroup": "\(report.expiredGroupMessages)",
                    "vanished": "\(report.vanishedMessages)", "vanishedGroup": "\(report.vanishedGroupMessages)",
                    "acknowledgements": "\(report.acknowledgements)", "notices": "\(report.notices)",
                    "blobs": "\(report.blobs)",
                ]
            )
        }
        return report
    }

    /// Runs `delete` (given the batch size, answering how many it deleted) until a batch comes back short, so a
    /// backlog is deleted in bounded transactions as `expireMessages` does.
    private func deleteInBatches(_ delete: (Int) async throws -> Int) async throws -> Int {
        let batch = self.configuration.expiryBatchSize
        var total = 0
        while true {
            try Task.checkCancellation()
            let deleted = try await delete(batch)
            total += deleted
            if deleted < batch { return total }
        }
    }

    /// Expires every message older than the retention period, one bounded transaction at a time, so a backlog never
    /// holds the database for long; counts each batch as it commits.
    private func expireMessages(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-self.configuration.messageRetention.seconds)
        let batch = self.configuration.expiryBatchSize
        var total = 0
        while true {
            try Task.checkCancellation()
            let expired = try await self.storage.mailboxes.expire(receivedBefore: cutoff, at: now, limit: batch)
            self.metrics.messagesExpired.increment(by: expired)
            total += expired
            if expired < batch { return total }
        }
    }
}
