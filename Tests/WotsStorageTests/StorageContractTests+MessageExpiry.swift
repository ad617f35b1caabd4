import Foundation
import Testing
import WotsCore
import WotsStorage

/// A v2 envelope's `expiresAt`: the sender asked for the message to vanish then, delivered or not.
extension StorageContractTests {
    static let expiry: UInt64 = 1_700_000_060_000

    @Test(arguments: StorageBackendKind.allCases)
    func aMessagePastItsExpiresAtIsNeverReadAndIsDeletedWithoutANotice(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let vanishing = TestValues.envelope(from: alice, to: bob, expiresAt: Self.expiry)
            let lasting = TestValues.envelope(from: alice, to: bob, expiresAt: 0)
            var old = TestValues.envelope(from: alice, to: bob)
            old.header.version = 1
            for envelope in [vanishing, lasting, old] {
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            let justBefore = TestValues.time(Int64(Self.expiry) - 1)
            let then = TestValues.time(Int64(Self.expiry))

            #expect(
                try await backend.mailboxes.messages(for: bob, after: 0, limit: 10, at: justBefore).map(\.envelope)
                    == [vanishing, lasting, old]
            )
            #expect(try await backend.mailboxes.deleteExpired(at: justBefore, limit: 100) == 0)
            #expect(
                try await backend.mailboxes.messages(for: bob, after: 0, limit: 10, at: then).map(\.envelope)
                    == [lasting, old]
            )
            #expect(try await backend.mailboxes.depth(of: bob) == 3)

            #expect(try await backend.mailboxes.deleteExpired(at: then, limit: 100) == 1)

            #expect(try await backend.mailboxes.depth(of: bob) == 2)
            #expect(
                try await backend.mailboxes.messages(for: bob, after: 0, limit: 10, at: justBefore).map(\.envelope)
                    == [lasting, old]
            )
            #expect(try await backend.mailboxes.expiryNotices(for: alice, limit: 10).isEmpty)
            #expect(try await backend.mailboxes.statistics().expiryNotices == 0)
            let farFuture = TestValues.time(4_000_000_000_000)
            #expect(try await backend.mailboxes.deleteExpired(at: farFuture, limit: 100) == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletingExpiredMessagesGivesTheirBytesBackToTheQuota(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let vanishing = TestValues.envelope(from: alice, to: bob, expiresAt: Self.expiry)
            let quota = vanishing.serialized.count
            _ = try await backend.mailboxes.append(
                vanishing,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: quota
            )
            let next = TestValues.envelope(from: alice, to: bob)
            await expectStorageError(.mailboxQuotaExceeded) {
                _ = try await backend.mailboxes.append(
                    next,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: quota
                )
            }

            #expect(try await backend.mailboxes.deleteExpired(at: TestValues.time(Int64(Self.expiry)), limit: 10) == 1)

            let receipt = try await backend.mailboxes.append(
                next,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: quota
            )
            #expect(receipt.sequence == 2)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func expiredMessagesAreDeletedInBatchesSoonestFirst(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let envelopes = (0..<5).map { offset in
                TestValues.envelope(
                    from: alice,
                    to: offset.isMultiple(of: 2) ? bob : carol,
                    expiresAt: Self.expiry - UInt64(offset) * 1_000
                )
            }
            for envelope in envelopes {
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            let then = TestValues.time(Int64(Self.expiry))

            #expect(try await backend.mailboxes.deleteExpired(at: then, limit: 2) == 2)
            // The two that expired first (offsets 4 and 3) went first.
            #expect(try await backend.mailboxes.depth(of: bob) == 2)
            #expect(try await backend.mailboxes.depth(of: carol) == 1)
            #expect(try await backend.mailboxes.deleteExpired(at: then, limit: 2) == 2)
            #expect(try await backend.mailboxes.deleteExpired(at: then, limit: 2) == 1)
            #expect(try await backend.mailboxes.statistics().waiting == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anExpiringMessageAcknowledgedOrDeletedWithItsMailboxLeavesNothingToExpire(kind: StorageBackendKind)
        async throws
    {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let toBob = TestValues.envelope(from: alice, to: bob, expiresAt: Self.expiry)
            let toCarol = TestValues.envelope(from: alice, to: carol, expiresAt: Self.expiry)
            for envelope in [toBob, toCarol] {
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }

            #expect(
                try await backend.mailboxes.acknowledge([toBob.header.messageKey], for: bob, at: TestValues.time())
                    .count == 1
            )
            try await backend.mailboxes.deleteMailbox(of: carol)

            #expect(try await backend.mailboxes.deleteExpired(at: TestValues.time(Int64(Self.expiry)), limit: 10) == 0)
            // A retried send of the acknowledged message is still recognised.
            let retried = try await backend.mailboxes.append(
                toBob,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            #expect(retried.isNew == false)
        }
    }
}
