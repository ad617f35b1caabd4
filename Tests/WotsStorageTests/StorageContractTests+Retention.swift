import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func expiringDeletesMessagesReceivedBeforeTheCutoffAndTellsTheirSenders(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, carol, bob) = (TestValues.token(), TestValues.token(), TestValues.token())
            let old = TestValues.time(1_700_000_000_000)
            let new = TestValues.time(1_700_000_100_000)
            let now = TestValues.time(1_700_000_200_000)
            let fromAlice = TestValues.envelope(from: alice, to: bob)
            let fromCarol = TestValues.envelope(from: carol, to: bob)
            let fresh = TestValues.envelope(from: alice, to: bob)
            for (envelope, time) in [(fromAlice, old), (fromCarol, old), (fresh, new)] {
                _ = try await backend.mailboxes.append(envelope, receivedAt: time, mailboxCapacity: Self.capacity)
            }

            #expect(try await backend.mailboxes.expire(receivedBefore: old, at: now, limit: 100) == 0)
            #expect(try await backend.mailboxes.expire(receivedBefore: new, at: now, limit: 100) == 2)

            #expect(try await backend.mailboxes.depth(of: bob) == 1)
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope) == [fresh])
            #expect(
                try await backend.mailboxes.expiryNotices(for: alice, limit: 10) == [
                    ExpiryNotice(
                        sender: alice,
                        messageID: fromAlice.header.messageID,
                        recipient: bob,
                        receivedAt: old,
                        expiredAt: now
                    )
                ]
            )
            #expect(
                try await backend.mailboxes.expiryNotices(for: carol, limit: 10).map(\.messageID) == [
                    fromCarol.header.messageID
                ]
            )
            #expect(try await backend.mailboxes.expiryNotices(for: bob, limit: 10).isEmpty)
            #expect(try await backend.mailboxes.statistics().expiryNotices == 2)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func expiryWorksOffABacklogInBatchesOldestFirst(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            var sent: [UUID] = []
            for offset in 0..<5 {
                let envelope = TestValues.envelope(from: alice, to: bob)
                sent.append(envelope.header.messageID)
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(1_700_000_000_000 + Int64(offset) * 1_000),
                    mailboxCapacity: Self.capacity
                )
            }
            let cutoff = TestValues.time(1_700_000_100_000)
            var batches: [Int] = []
            var noticed: [[UUID]] = []
            for step in 0..<4 {
                let now = TestValues.time(1_700_000_200_000 + Int64(step))
                batches.append(try await backend.mailboxes.expire(receivedBefore: cutoff, at: now, limit: 2))
                noticed.append(try await backend.mailboxes.expiryNotices(for: alice, limit: 10).map(\.messageID))
            }
            #expect(batches == [2, 2, 1, 0])
            // Oldest messages first; notices oldest expiry first (one batch's share its time: then by message id).
            #expect(noticed.map(\.count) == [2, 4, 5, 5])
            #expect(Set(noticed[0]) == Set(sent[..<2]))
            #expect(Set(noticed[1][..<2]) == Set(sent[..<2]) && Set(noticed[1][2...]) == Set(sent[2..<4]))
            #expect(noticed[2].last == sent[4])
            #expect(try await backend.mailboxes.depth(of: bob) == 0)
            #expect(
                try await backend.mailboxes.expiryNotices(for: alice, limit: 3).map(\.messageID)
                    == Array(noticed[2][..<3])
            )
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func concurrentExpiryNoticesEachMessageOnce(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let envelopes = (0..<60).map { _ in TestValues.envelope(from: alice, to: bob) }
            _ = try await backend.mailboxes.append(
                batch: envelopes,
                receivedAt: TestValues.time(1_700_000_000_000),
                mailboxCapacity: Self.capacity
            )
            let mailboxes = backend.mailboxes
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for sweeper in 0..<4 {
                    group.addTask {
                        var total = 0
                        while true {
                            let expired = try await mailboxes.expire(
                                receivedBefore: TestValues.time(1_700_000_100_000),
                                at: TestValues.time(1_700_000_200_000 + Int64(sweeper)),
                                limit: 7
                            )
                            total += expired
                            if expired < 7 { return total }
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.reduce(0, +) == 60, "each message expires once: \(counts)")
            let notices = try await backend.mailboxes.expiryNotices(for: alice, limit: 100)
            #expect(Set(notices.map(\.messageID)) == Set(envelopes.map(\.header.messageID)))
            #expect(notices.count == 60)
            #expect(
                try await backend.mailboxes.statistics().mailTotals
                    == MailboxStatistics(waiting: 0, deepest: 0, expiryNotices: 60)
            )
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aSenderClearsOnlyTheirOwnNotices(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, carol, bob) = (TestValues.token(), TestValues.token(), TestValues.token())
            let fromAlice = TestValues.envelope(from: alice, to: bob)
            let fromCarol = TestValues.envelope(from: carol, to: bob)
            _ = try await backend.mailboxes.append(
                batch: [fromAlice, fromCarol],
                receivedAt: TestValues.time(1_700_000_000_000),
                mailboxCapacity: Self.capacity
            )
            let now = TestValues.time(1_700_000_200_000)
            #expect(try await backend.mailboxes.expire(receivedBefore: now, at: now, limit: 10) == 2)

            let aliceID = fromAlice.header.messageID
            let cleared = try await backend.mailboxes.clearExpiryNotices(
                [fromCarol.header.messageID, aliceID, aliceID, UUID()],
                for: alice
            )
            #expect(cleared == [aliceID])
            #expect(try await backend.mailboxes.expiryNotices(for: alice, limit: 10).isEmpty)
            #expect(try await backend.mailboxes.expiryNotices(for: carol, limit: 10).count == 1)
            #expect(try await backend.mailboxes.clearExpiryNotices([aliceID], for: alice).isEmpty)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func noticesAreForgottenOnceOlderThanTheCutoffAndWithTheSendersAccount(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, carol, bob) = (TestValues.token(), TestValues.token(), TestValues.token())
            _ = try await backend.mailboxes.append(
                batch: [TestValues.envelope(from: alice, to: bob), TestValues.envelope(from: carol, to: bob)],
                receivedAt: TestValues.time(1_700_000_000_000),
                mailboxCapacity: Self.capacity
            )
            let expiredAt = TestValues.time(1_700_000_200_000)
            #expect(try await backend.mailboxes.expire(receivedBefore: expiredAt, at: expiredAt, limit: 10) == 2)

            #expect(try await backend.mailboxes.forgetExpiryNotices(before: expiredAt) == 0)
            try await backend.mailboxes.deleteMailbox(of: alice)
            #expect(try await backend.mailboxes.expiryNotices(for: alice, limit: 10).isEmpty)
            #expect(try await backend.mailboxes.expiryNotices(for: carol, limit: 10).count == 1)
            #expect(try await backend.mailboxes.forgetExpiryNotices(before: TestValues.time(1_700_000_200_001)) == 1)
            #expect(try await backend.mailboxes.statistics().expiryNotices == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theByteQuotaRefusesAnEnvelopeThatWouldPassItUntilSpaceIsFreed(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let first = TestValues.envelope(from: alice, to: bob)
            let size = first.serialized.count
            let quota = 2 * size + size / 2
            func append(_ envelope: Envelope) async throws -> MailboxReceipt {
                try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: quota
                )
            }
            _ = try await append(first)
            _ = try await append(TestValues.envelope(from: alice, to: bob))
            let refused = TestValues.envelope(from: alice, to: bob)
            let error = await expectStorageError(.mailboxQuotaExceeded) { _ = try await append(refused) }
            #expect(error?.reason.contains("quota of \(quota) bytes") == true)
            #expect(try await backend.mailboxes.depth(of: bob) == 2)
            // Another recipient has a quota of its own.
            _ = try await append(TestValues.envelope(from: alice, to: TestValues.token()))

            try await backend.mailboxes.acknowledge([first.header.messageKey], for: bob, at: TestValues.time())
            #expect(try await append(refused).sequence == 3)

            let outcomes = try await backend.mailboxes.append(
                batch: [TestValues.envelope(from: alice, to: bob)],
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: quota
            )
            #expect(throws: WotsError(.mailboxQuotaExceeded, "")) { try outcomes[0].get() }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func expiryAndMailboxDeletionFreeTheByteQuota(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let old = TestValues.envelope(from: alice, to: bob)
            let quota = old.serialized.count
            func append(_ envelope: Envelope, at time: Date) async throws -> MailboxReceipt {
                try await backend.mailboxes.append(
                    envelope,
                    receivedAt: time,
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: quota
                )
            }
            _ = try await append(old, at: TestValues.time(1_700_000_000_000))
            let next = TestValues.envelope(from: alice, to: bob)
            await expectStorageError(.mailboxQuotaExceeded) { _ = try await append(next, at: TestValues.time()) }
            let now = TestValues.time(1_700_000_200_000)
            #expect(try await backend.mailboxes.expire(receivedBefore: now, at: now, limit: 10) == 1)
            _ = try await append(next, at: now)

            try await backend.mailboxes.deleteMailbox(of: bob)
            _ = try await append(TestValues.envelope(from: alice, to: bob), at: now)
        }
    }
}
