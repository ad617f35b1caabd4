import Foundation
import Testing
import WotsCore
import WotsStorage

/// A group message whose last slot was acknowledged is remembered like a 1:1 one: a retried send is answered with the
/// first receipt and reaches no member again, until the relay forgets it.
extension StorageContractTests {
    /// Stores a group message from a new sender to two new members and acknowledges both slots at `acknowledgedAt`.
    func acknowledgedGroupMessage(
        _ groups: any GroupMailboxRepository,
        acknowledgedAt: Date = TestValues.time(1_700_000_005_000)
    ) async throws -> (envelope: GroupEnvelope, slots: [GroupSlot], first: GroupMailboxReceipt) {
        let members = [TestValues.token(), TestValues.token()]
        let (envelope, slots) = TestValues.groupMessage(from: TestValues.token(), to: members)
        let first = try await groups.appendGroup(
            envelope,
            slots: slots,
            receivedAt: TestValues.time(),
            mailboxCapacity: Self.capacity,
            mailboxQuota: .max
        )
        for member in members {
            let acknowledged = try await groups.acknowledgeGroup(
                [envelope.header.messageKey],
                for: member,
                at: acknowledgedAt
            )
            #expect(acknowledged == [envelope.header.messageKey])
        }
        #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        return (envelope, slots, first)
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRetryAfterEveryMemberAcknowledgedGetsTheFirstReceiptAndReachesNoMemberAgain(kind: StorageBackendKind)
        async throws
    {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (envelope, slots, first) = try await self.acknowledgedGroupMessage(groups)
            let retry = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(1_700_000_009_000),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            #expect(!retry.isNew)
            #expect(retry.receivedAt == first.receivedAt)
            #expect(retry.sequences == [0, 0], "no slot waits: nothing was stored again")
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
            for slot in slots {
                let waiting = try await groups.groupMessages(for: slot.recipient, after: 0, limit: 10, at: Date())
                #expect(waiting.isEmpty, "\(slot.recipient) was handed the message again")
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anotherBodyUnderAnAcknowledgedGroupMessagesIDIsAConflict(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (envelope, slots, _) = try await self.acknowledgedGroupMessage(groups)
            var forged = envelope
            forged.signature = TestValues.randomBytes(256)
            await expectStorageError(.messageIDConflict) {
                _ = try await groups.appendGroup(
                    forged,
                    slots: slots,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity,
                    mailboxQuota: .max
                )
            }
            #expect(try await groups.groupStatistics().bodies == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aForgottenGroupAcknowledgementLetsTheSameSendBeStoredAgain(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let acknowledgedAt = TestValues.time(1_700_000_005_000)
            let (envelope, slots, first) = try await self.acknowledgedGroupMessage(
                groups,
                acknowledgedAt: acknowledgedAt
            )
            #expect(try await groups.forgetAcknowledgedGroupMessages(before: acknowledgedAt) == 0)
            #expect(try await groups.forgetAcknowledgedGroupMessages(before: TestValues.time(1_700_000_005_001)) == 1)
            let again = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(1_700_000_009_000),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            #expect(again.isNew)
            #expect(again.sequences == first.sequences.map { $0 + 1 }, "a sequence is never handed out twice")
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRetryWhileSomeSlotsWaitNamesOnlyTheirSequences(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (bob, carol) = (TestValues.token(), TestValues.token())
            let (envelope, slots) = TestValues.groupMessage(from: TestValues.token(), to: [bob, carol])
            let first = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            try await groups.acknowledgeGroup([envelope.header.messageKey], for: bob, at: TestValues.time())
            let retry = try await groups.appendGroup(
                envelope,
                slots: slots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let bobIndex = try #require(envelope.header.recipients.firstIndex { $0.token == bob })
            #expect(!retry.isNew)
            #expect(retry.sequences[bobIndex] == 0, "bob's slot was acknowledged")
            #expect(retry.sequences[1 - bobIndex] == first.sequences[1 - bobIndex])
            #expect(try await groups.forgetAcknowledgedGroupMessages(before: TestValues.time(2_000_000_000_000)) == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anExpiredOrDeletedMailboxsGroupMessageIsNotRememberedAsAcknowledged(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let groups = try self.groups(backend)
            let (bob, carol) = (TestValues.token(), TestValues.token())
            let (expiring, expiringSlots) = TestValues.groupMessage(from: bob, to: [carol], expiresAt: Self.expiry)
            _ = try await groups.appendGroup(
                expiring,
                slots: expiringSlots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            let (deleted, deletedSlots) = TestValues.groupMessage(from: bob, to: [carol])
            _ = try await groups.appendGroup(
                deleted,
                slots: deletedSlots,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: .max
            )
            #expect(
                try await groups.deleteExpiredGroupMessages(at: TestValues.time(Int64(Self.expiry)), limit: 10) == 1
            )
            try await backend.mailboxes.deleteMailbox(of: carol)
            #expect(try await groups.forgetAcknowledgedGroupMessages(before: TestValues.time(2_000_000_000_000)) == 0)
        }
    }
}
