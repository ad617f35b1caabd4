import Foundation
import Testing
import WotsCore
import WotsStorage
import WotsStoragePostgres

/// Expiry on PostgreSQL with several relay processes ("nodes") sweeping one database at once.
@Suite("PostgreSQL expiry from several nodes")
struct PostgresExpiryTests {
    @Test func twoNodesSweepingAtOnceExpireEachMessageOnceWithOneNotice() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let alice = TestValues.token()
            let recipients = (0..<8).map { _ in TestValues.token() }
            var sent: [UUID] = []
            for recipient in recipients {
                let envelopes = (0..<25).map { _ in TestValues.envelope(from: alice, to: recipient) }
                sent += envelopes.map(\.header.messageID)
                _ = try await nodeA.mailboxes.append(
                    batch: envelopes,
                    receivedAt: TestValues.time(1_700_000_000_000),
                    mailboxCapacity: 1_000
                )
            }
            let cutoff = TestValues.time(1_700_000_100_000)
            func sweep(_ node: PostgresDatabase, at milliseconds: Int64) async throws -> Int {
                let mailboxes = node.mailboxes
                var total = 0
                while true {
                    let expired = try await mailboxes.expire(
                        receivedBefore: cutoff,
                        at: TestValues.time(milliseconds),
                        limit: 9
                    )
                    total += expired
                    if expired == 0 { return total }
                }
            }
            async let byA = sweep(nodeA, at: 1_700_000_200_000)
            async let byB = sweep(nodeB, at: 1_700_000_200_001)
            let (expiredByA, expiredByB) = try await (byA, byB)

            #expect(expiredByA + expiredByB == sent.count, "A expired \(expiredByA), B \(expiredByB)")
            let notices = try await nodeB.mailboxes.expiryNotices(for: alice, limit: 500)
            #expect(notices.count == sent.count)
            #expect(Set(notices.map(\.messageID)) == Set(sent))
            for recipient in recipients {
                #expect(try await nodeA.mailboxes.depth(of: recipient) == 0)
            }
            #expect(
                try await nodeA.mailboxes.statistics()
                    == MailboxStatistics(waiting: 0, deepest: 0, expiryNotices: sent.count)
            )
        }
    }
}
