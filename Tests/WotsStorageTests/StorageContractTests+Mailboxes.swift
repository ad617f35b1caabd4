import Foundation
import Testing
import WotsCore
import WotsStorage

extension StorageContractTests {
    static let capacity = 10_000

    @Test(arguments: StorageBackendKind.allCases)
    func appendedEnvelopesGetSequencesIncreasingFromOne(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let carol = TestValues.token()
            var sequences: [Int64] = []
            for offset in 0..<3 {
                let time = TestValues.time(1_700_000_000_000 + Int64(offset))
                let receipt = try await backend.mailboxes.append(
                    TestValues.envelope(from: alice, to: bob),
                    receivedAt: time,
                    mailboxCapacity: Self.capacity
                )
                #expect(receipt.receivedAt == time)
                sequences.append(receipt.sequence)
            }
            #expect(sequences == [1, 2, 3])
            // Every recipient counts from 1.
            let first = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: carol),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            #expect(first.sequence == 1)
            #expect(try await backend.mailboxes.depth(of: bob) == 3)
            #expect(try await backend.mailboxes.depth(of: carol) == 1)
            #expect(try await backend.mailboxes.depth(of: alice) == 0)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func reappendingTheSameEnvelopeReturnsTheOriginalReceiptAndStoresOneCopy(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let envelope = TestValues.envelope(from: alice, to: bob)
            let first = try await backend.mailboxes.append(
                envelope,
                receivedAt: TestValues.time(1_700_000_000_000),
                mailboxCapacity: Self.capacity
            )
            let again = try await backend.mailboxes.append(
                envelope,
                receivedAt: TestValues.time(1_700_000_099_000),
                mailboxCapacity: Self.capacity
            )
            #expect(again == first)
            #expect(try await backend.mailboxes.depth(of: bob) == 1)
            let messages = try await backend.mailboxes.messages(for: bob, after: 0, limit: 10)
            #expect(messages.map(\.envelope) == [envelope])
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aDifferentEnvelopeWithAUsedMessageIDIsAConflict(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let id = UUID()
            let original = TestValues.envelope(from: alice, to: bob, id: id)
            _ = try await backend.mailboxes.append(
                original,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            await expectStorageError(.messageIDConflict) {
                _ = try await backend.mailboxes.append(
                    TestValues.envelope(from: alice, to: bob, id: id),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            // Also when the sender re-addresses the id to someone else.
            await expectStorageError(.messageIDConflict) {
                _ = try await backend.mailboxes.append(
                    TestValues.envelope(from: alice, to: TestValues.token(), id: id),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            let messages = try await backend.mailboxes.messages(for: bob, after: 0, limit: 10)
            #expect(messages.map(\.envelope) == [original])
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theSameMessageIDFromAnotherSenderIsAccepted(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let id = UUID()
            let fromAlice = try await backend.mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: bob, id: id),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            let fromCarol = try await backend.mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: bob, id: id),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            #expect([fromAlice.sequence, fromCarol.sequence] == [1, 2])
            #expect(try await backend.mailboxes.depth(of: bob) == 2)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aFullMailboxRefusesNewMailAndStoresNothing(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            var envelopes: [Envelope] = []
            for _ in 0..<3 {
                let envelope = TestValues.envelope(from: alice, to: bob)
                envelopes.append(envelope)
                _ = try await backend.mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 3)
            }
            let refused = TestValues.envelope(from: alice, to: bob)
            await expectStorageError(.mailboxFull) {
                _ = try await backend.mailboxes.append(refused, receivedAt: TestValues.time(), mailboxCapacity: 3)
            }
            #expect(try await backend.mailboxes.depth(of: bob) == 3)
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope) == envelopes)

            // A retry of mail already held is still answered, full or not.
            let retry = try await backend.mailboxes.append(
                envelopes[1],
                receivedAt: TestValues.time(),
                mailboxCapacity: 3
            )
            #expect(retry.sequence == 2)

            // Acknowledging makes room; the sequence carries on and is never reused.
            try await backend.mailboxes.acknowledge([envelopes[0].header.messageKey], for: bob, at: TestValues.time())
            let next = try await backend.mailboxes.append(refused, receivedAt: TestValues.time(), mailboxCapacity: 3)
            #expect(next.sequence == 4)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func fetchingReturnsMessagesAfterASequenceUpToTheLimit(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            var envelopes: [Envelope] = []
            for offset in 0..<5 {
                let envelope = TestValues.envelope(from: alice, to: bob)
                envelopes.append(envelope)
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(1_700_000_000_000 + Int64(offset)),
                    mailboxCapacity: Self.capacity
                )
            }
            _ = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: TestValues.token()),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )

            let firstTwo = try await backend.mailboxes.messages(for: bob, after: 0, limit: 2)
            #expect(firstTwo.map(\.sequence) == [1, 2])
            #expect(firstTwo.map(\.envelope) == Array(envelopes[0..<2]))
            #expect(
                firstTwo.map(\.receivedAt) == [TestValues.time(1_700_000_000_000), TestValues.time(1_700_000_000_001)]
            )
            let rest = try await backend.mailboxes.messages(for: bob, after: 2, limit: 100)
            #expect(rest.map(\.sequence) == [3, 4, 5])
            #expect(rest.map(\.envelope) == Array(envelopes[2...]))
            #expect(try await backend.mailboxes.messages(for: bob, after: 5, limit: 100).isEmpty)
            #expect(try await backend.mailboxes.messages(for: alice, after: 0, limit: 100).isEmpty)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func acknowledgingDeletesOnlyTheRecipientsOwnMessages(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let carol = TestValues.token()
            let toBob = [TestValues.envelope(from: alice, to: bob), TestValues.envelope(from: alice, to: bob)]
            let toCarol = TestValues.envelope(from: alice, to: carol)
            for envelope in toBob + [toCarol] {
                _ = try await backend.mailboxes.append(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }

            // Carol's message in Bob's acknowledgement is ignored, as is a key nobody used; a key named twice counts
            // once.
            let deleted = try await backend.mailboxes.acknowledge(
                [
                    toBob[0].header.messageKey, toCarol.header.messageKey, MessageKey(sender: alice, id: UUID()),
                    toBob[0].header.messageKey,
                ],
                for: bob,
                at: TestValues.time()
            )
            #expect(deleted == [toBob[0].header.messageKey])
            #expect(try await backend.mailboxes.depth(of: bob) == 1)
            #expect(try await backend.mailboxes.depth(of: carol) == 1)
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope) == [toBob[1]])
            #expect(try await backend.mailboxes.messages(for: carol, after: 0, limit: 10).map(\.envelope) == [toCarol])
            #expect(try await backend.mailboxes.acknowledge([], for: bob, at: TestValues.time()).isEmpty)
            #expect(
                try await backend.mailboxes.acknowledge([toBob[0].header.messageKey], for: bob, at: TestValues.time())
                    .isEmpty
            )
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletingAMailboxRemovesEveryMessageOfThatRecipientOnly(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let carol = TestValues.token()
            for recipient in [bob, bob, bob, carol] {
                _ = try await backend.mailboxes.append(
                    TestValues.envelope(from: alice, to: recipient),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            try await backend.mailboxes.deleteMailbox(of: bob)
            #expect(try await backend.mailboxes.depth(of: bob) == 0)
            #expect(try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).isEmpty)
            #expect(try await backend.mailboxes.depth(of: carol) == 1)
            try await backend.mailboxes.deleteMailbox(of: TestValues.token())
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func batchAppendGivesEachEnvelopeTheOutcomeAppendWouldGive(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.token()
            let bob = TestValues.token()
            let carol = TestValues.token()
            let earlier = TestValues.envelope(from: alice, to: bob)
            let earlierReceipt = try await backend.mailboxes.append(
                earlier,
                receivedAt: TestValues.time(),
                mailboxCapacity: 3
            )

            let fresh = TestValues.envelope(from: alice, to: bob)
            let conflicting = TestValues.envelope(from: alice, to: bob, id: earlier.header.messageID)
            let fills = TestValues.envelope(from: alice, to: bob)
            let overflow = TestValues.envelope(from: alice, to: bob)
            let toCarol = TestValues.envelope(from: alice, to: carol)
            let batchTime = TestValues.time(1_700_000_000_999)
            let outcomes = try await backend.mailboxes.append(
                batch: [fresh, earlier, conflicting, fills, overflow, toCarol, fresh],
                receivedAt: batchTime,
                mailboxCapacity: 3
            )
            try #require(outcomes.count == 7)
            #expect(try outcomes[0].get() == MailboxReceipt(sequence: 2, receivedAt: batchTime))
            #expect(try outcomes[1].get() == earlierReceipt)
            #expect(throws: WotsError(.messageIDConflict, "")) { try outcomes[2].get() }
            #expect(try outcomes[3].get().sequence == 3)
            #expect(throws: WotsError(.mailboxFull, "")) { try outcomes[4].get() }
            #expect(try outcomes[5].get().sequence == 1)
            #expect(try outcomes[6].get() == outcomes[0].get())

            #expect(try await backend.mailboxes.depth(of: bob) == 3)
            let stored = try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope)
            #expect(stored == [earlier, fresh, fills])
            #expect(try await backend.mailboxes.append(batch: [], receivedAt: batchTime, mailboxCapacity: 3).isEmpty)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func concurrentAppendsGetDistinctGapFreeSequences(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let bob = TestValues.token()
            let carol = TestValues.token()
            let mailboxes = backend.mailboxes
            let receipts = try await withThrowingTaskGroup(of: (Token, MailboxReceipt).self) { group in
                for index in 0..<200 {
                    let recipient = index.isMultiple(of: 4) ? carol : bob
                    let envelope = TestValues.envelope(from: TestValues.token(), to: recipient)
                    group.addTask {
                        let receipt = try await mailboxes.append(
                            envelope,
                            receivedAt: TestValues.time(),
                            mailboxCapacity: Self.capacity
                        )
                        return (recipient, receipt)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let bobs = receipts.filter { $0.0 == bob }.map(\.1.sequence).sorted()
            let carols = receipts.filter { $0.0 == carol }.map(\.1.sequence).sorted()
            #expect(bobs == Array(1...150))
            #expect(carols == Array(1...50))
            #expect(try await backend.mailboxes.depth(of: bob) == 150)
            #expect(
                try await backend.mailboxes.messages(for: bob, after: 0, limit: 1_000).map(\.sequence) == Array(1...150)
            )
        }
    }
}

extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func statisticsCountWaitingMailAndTheFullestMailbox(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            #expect(try await backend.mailboxes.statistics().mailTotals == MailboxStatistics(waiting: 0, deepest: 0))
            let alice = TestValues.token()
            let bob = TestValues.token()
            let carol = TestValues.token()
            for recipient in [bob, bob, carol] {
                _ = try await backend.mailboxes.append(
                    TestValues.envelope(from: alice, to: recipient),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: Self.capacity
                )
            }
            #expect(try await backend.mailboxes.statistics().mailTotals == MailboxStatistics(waiting: 3, deepest: 2))
        }
    }
}
