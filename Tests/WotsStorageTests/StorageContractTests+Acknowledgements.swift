import Foundation
import Testing
import WotsCore
import WotsStorage

/// A message is (sender, id): acknowledgements, deduplication and their memory, on every backend.
extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func twoSendersUsingOneIDAreTwoMessagesAndAckingOneLeavesTheOther(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let id = UUID()
            let fromAlice = TestValues.envelope(from: TestValues.token(), to: bob, id: id)
            let fromCarol = TestValues.envelope(from: TestValues.token(), to: bob, id: id)
            let first = try await backend.mailboxes.append(
                fromAlice,
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            let second = try await backend.mailboxes.append(
                fromCarol,
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            #expect(first.isNew && second.isNew)
            #expect([first.sequence, second.sequence] == [1, 2])

            let deleted = try await backend.mailboxes.acknowledge(
                [fromAlice.header.messageKey],
                for: bob,
                at: TestValues.time()
            )
            #expect(deleted == [fromAlice.header.messageKey])
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope) == [fromCarol])
            #expect(try await backend.mailboxes.depth(of: bob) == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRetryOfAnAcknowledgedMessageGetsItsFirstReceiptAndIsNotStoredAgain(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let envelope = TestValues.envelope(from: TestValues.token(), to: bob)
            let first = try await backend.mailboxes.append(
                envelope,
                receivedAt: TestValues.time(1_700_000_000_000),
                mailboxCapacity: 10
            )
            try await backend.mailboxes.acknowledge([envelope.header.messageKey], for: bob, at: TestValues.time())
            let retry = try await backend.mailboxes.append(
                envelope,
                receivedAt: TestValues.time(1_700_000_555_000),
                mailboxCapacity: 10
            )
            #expect(retry == first)
            #expect(!retry.isNew, "nothing new was stored, so nobody may be offered it")
            #expect(try await backend.mailboxes.depth(of: bob) == 0)
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).isEmpty)

            var other = TestValues.envelope(from: envelope.header.sender, to: bob, id: envelope.header.messageID)
            other.header = envelope.header
            await expectStorageError(.messageIDConflict) {
                _ = try await backend.mailboxes.append(other, receivedAt: TestValues.time(), mailboxCapacity: 10)
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aForgottenAcknowledgementLetsTheSameSendBeStoredAgain(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let envelope = TestValues.envelope(from: TestValues.token(), to: bob)
            _ = try await backend.mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10)
            try await backend.mailboxes.acknowledge(
                [envelope.header.messageKey],
                for: bob,
                at: TestValues.time(1_700_000_000_000)
            )
            #expect(try await backend.mailboxes.forgetAcknowledgements(before: TestValues.time(1_700_000_000_000)) == 0)
            #expect(try await backend.mailboxes.forgetAcknowledgements(before: TestValues.time(1_700_000_000_001)) == 1)
            let again = try await backend.mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10)
            #expect(again.isNew)
            #expect(again.sequence == 2, "a sequence is never handed out twice")
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletingAMailboxForgetsItsAcknowledgementsToo(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let envelope = TestValues.envelope(from: TestValues.token(), to: bob)
            _ = try await backend.mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10)
            try await backend.mailboxes.acknowledge([envelope.header.messageKey], for: bob, at: TestValues.time())
            try await backend.mailboxes.deleteMailbox(of: bob)
            #expect(try await backend.mailboxes.forgetAcknowledgements(before: TestValues.time(2_000_000_000_000)) == 0)
        }
    }
}
