import Foundation
import Testing
import WotsCore
import WotsStorage

/// Group messages: the body stored once, one slot per member's mailbox, all or nothing.
extension StorageContractTests {
    func groups(_ backend: StorageBackend) throws -> any GroupMailboxRepository {
        try #require(backend.mailboxes as? any GroupMailboxRepository)
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aOneKibibyteMessageToAHundredMembersStoresItsCiphertextOnce(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let alice = TestValues.token()
            let members = (0..<100).map { _ in TestValues.token() }
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: members)
            let receipt = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            #expect(receipt.isNew)
            #expect(receipt.sequences == Array(repeating: 1, count: 100))
            let statistics = try await groups.groupStatistics()
            #expect(statistics.bodies == 1)
            #expect(statistics.slots == 100)
            #expect(statistics.bodyBytes == envelope.serializedSize)
            #expect(envelope.serializedSize < 1_024 + 100 * 80 + 600)
            for (member, slot) in zip(envelope.header.recipients.map(\.token), slots) {
                let read = try await groups.groupMessages(for: member, after: 0, limit: 10, at: TestValues.time())
                #expect(read.count == 1)
                #expect(read.first?.envelope == envelope)
                #expect(read.first?.slot == slot.wrappedKey)
                #expect(read.first?.receivedAt == TestValues.time())
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func slotsTakeTheirPlaceAmongTheRecipientsOneToOneMessages(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            _ = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: bob),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol])
            let receipt = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let bobIndex = try #require(envelope.header.recipients.firstIndex { $0.token == bob })
            #expect(receipt.sequences[bobIndex] == 2)
            #expect(receipt.sequences[1 - bobIndex] == 1)
            let next = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: bob),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            #expect(next.sequence == 3)
            #expect(try await groups.groupMessages(for: bob, after: 1, limit: 10, at: TestValues.time()).count == 1)
            #expect(try await groups.groupMessages(for: bob, after: 2, limit: 10, at: TestValues.time()).isEmpty)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theBodyIsDeletedWhenTheLastSlotIsAcknowledged(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol])
            _ = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let key = envelope.header.messageKey
            #expect(try await groups.acknowledgeGroup([key, key], for: bob, at: TestValues.time()) == [key])
            #expect(try await groups.acknowledgeGroup([key], for: bob, at: TestValues.time()).isEmpty)
            #expect(try await groups.groupMessages(for: bob, after: 0, limit: 10, at: TestValues.time()).isEmpty)
            #expect(
                try await groups.groupStatistics()
                    == GroupStorageStatistics(bodies: 1, slots: 1, bodyBytes: envelope.serializedSize)
            )
            #expect(try await groups.groupMessages(for: carol, after: 0, limit: 10, at: TestValues.time()).count == 1)
            #expect(try await groups.acknowledgeGroup([key], for: carol, at: TestValues.time()) == [key])
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRetriedGroupSendGetsTheFirstReceiptAndAnotherBodyUnderItsIDIsAConflict(kind: StorageBackendKind) async throws
    {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let id = UUID()
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol], id: id)
            let first = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let retry = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(1_700_000_009_000),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            #expect(!retry.isNew)
            #expect(
                retry == GroupMailboxReceipt(receivedAt: first.receivedAt, sequences: first.sequences, isNew: false)
            )
            let (other, otherSlots) = TestValues.groupMessage(from: alice, to: [bob, carol], id: id)
            await expectStorageError(.messageIDConflict) {
                _ = try await groups.appendGroup(
                    other,
                    slots: otherSlots,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: .max
                )
            }
            #expect(try await groups.groupStatistics().bodies == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func oneFullMailboxRefusesTheWholeGroupMessage(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            _ = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: carol),
                receivedAt: TestValues.time(),
                mailboxCapacity: 1
            )
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol])
            await expectStorageError(.mailboxFull) {
                _ = try await groups.appendGroup(
                    envelope,
                    slots: slots,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: 1,
                    mailboxQuota: .max
                )
            }
            await expectStorageError(.mailboxQuotaExceeded) {
                _ = try await groups.appendGroup(
                    envelope,
                    slots: slots,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: envelope.chargedBytesPerSlot - 1
                )
            }
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
            #expect(try await groups.groupMessages(for: bob, after: 0, limit: 10, at: TestValues.time()).isEmpty)
            let stored = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: 2,
                mailboxQuota: .max
            )
            let bobIndex = try #require(envelope.header.recipients.firstIndex { $0.token == bob })
            #expect(stored.sequences[bobIndex] == 1)
            #expect(stored.sequences[1 - bobIndex] == 2)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anExpiredGroupMessageIsNeverReadAndIsDeletedWithItsSlots(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol], expiresAt: Self.expiry)
            _ = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let justBefore = TestValues.time(Int64(Self.expiry) - 1)
            let then = TestValues.time(Int64(Self.expiry))
            #expect(try await groups.groupMessages(for: bob, after: 0, limit: 10, at: justBefore).count == 1)
            #expect(try await groups.groupMessages(for: bob, after: 0, limit: 10, at: then).isEmpty)
            #expect(try await groups.deleteExpiredGroupMessages(at: justBefore, limit: 10) == 0)
            #expect(try await groups.deleteExpiredGroupMessages(at: then, limit: 10) == 1)
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func retentionDeletesTheOldestBodiesReceivedBeforeTheCutoffInBatchesWithTheirSlots(kind: StorageBackendKind)
        async throws
    {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            var bodies: [GroupEnvelope] = []
            for offset in 0..<3 {
                let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol])
                _ = try await groups.appendGroup(
                    envelope,
                    slots: slots,
                    receivedAt: TestValues.time(1_700_000_000_000 + Int64(offset) * 1_000),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: .max
                )
                bodies.append(envelope)
            }
            let cutoff = TestValues.time(1_700_000_002_000)
            #expect(try await groups.expireGroupMessages(receivedBefore: cutoff, limit: 1) == 1)
            var left = try await groups.groupMessages(for: bob, after: 0, limit: 10, at: cutoff).map(\.envelope)
            #expect(left == Array(bodies.dropFirst()), "the oldest goes first")
            #expect(try await groups.expireGroupMessages(receivedBefore: cutoff, limit: 10) == 1)
            #expect(
                try await groups.expireGroupMessages(receivedBefore: cutoff, limit: 10) == 0,
                "received at the cutoff"
            )
            left = try await groups.groupMessages(for: carol, after: 0, limit: 10, at: cutoff).map(\.envelope)
            #expect(left == [bodies[2]])
            #expect(try await groups.groupStatistics().slots == 2)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletingAMembersMailboxDeletesItsSlotAndTheLastOneTheBody(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            let (envelope, slots) = TestValues.groupMessage(from: alice, to: [bob, carol])
            _ = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            try await backend.mailboxes.deleteMailbox(of: bob)
            #expect(try await groups.groupStatistics().slots == 1)
            #expect(try await groups.groupStatistics().bodies == 1)
            try await backend.mailboxes.deleteMailbox(of: carol)
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        }
    }
}
