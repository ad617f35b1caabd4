import Foundation
import Synchronization
import Testing
import WotsCore
import WotsStorage

/// `enqueueAppendNow` and `enqueueAcknowledgeNow`, which a socket's event loop calls: each either does exactly what
/// its waiting twin does, or answers nil having done nothing, so the caller can go on with the twin.
extension StorageContractTests {
    /// Every announcement, in order.
    final class Announced: Sendable {
        private let messages = Mutex<[MailboxMessage]>([])
        var all: [MailboxMessage] { self.messages.withLock { $0 } }
        func record(_ message: MailboxMessage) -> Bool {
            self.messages.withLock { $0.append(message) }
            return false
        }
    }

    /// `enqueueAppendNow`, or `enqueueAppend` after it answered nil, having checked that the nil changed nothing.
    static func appendWithoutWaiting(
        _ envelope: Envelope,
        to mailboxes: any MailboxRepository,
        announced: Announced
    ) async throws -> (receipt: MailboxReceipt, tookItNow: Bool) {
        let depth = try await mailboxes.depth(of: envelope.header.recipient)
        let announcements = announced.all.count
        if let write = try mailboxes.enqueueAppendNow(
            envelope,
            receivedAt: TestValues.time(),
            mailboxCapacity: Self.capacity,
            mailboxQuota: .max,
            announce: announced.record
        ) {
            return (try await write.outcome(), true)
        }
        #expect(try await mailboxes.depth(of: envelope.header.recipient) == depth, "a nil answer stored something")
        #expect(announced.all.count == announcements, "a nil answer announced something")
        let write = try await mailboxes.enqueueAppend(
            envelope,
            receivedAt: TestValues.time(),
            mailboxCapacity: Self.capacity,
            mailboxQuota: .max,
            announce: announced.record
        )
        return (try await write.outcome(), false)
    }

    @Test(arguments: StorageBackendKind.allCases)
    func appendsTakenWithoutWaitingAreNumberedAnnouncedAndStoredAsOthersAre(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let envelopes = (0..<20).map { _ in TestValues.envelope(from: alice, to: bob) }
            let announced = Announced()

            var receipts: [MailboxReceipt] = []
            for envelope in envelopes {
                let (receipt, _) = try await Self.appendWithoutWaiting(
                    envelope,
                    to: backend.mailboxes,
                    announced: announced
                )
                receipts.append(receipt)
            }

            #expect(receipts.map(\.sequence) == Array(1...20))
            #expect(receipts.allSatisfy { $0.isNew })
            #expect(announced.all.map(\.envelope) == envelopes)
            #expect(announced.all.map(\.sequence) == Array(1...20))
            let stored = try await backend.mailboxes.messages(for: bob, after: 0, limit: 100)
            #expect(stored.map(\.envelope) == envelopes)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRetryTakenWithoutWaitingGetsTheFirstReceiptAndIsNotAnnouncedAgain(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let envelope = TestValues.envelope(from: TestValues.token(), to: TestValues.token())
            let announced = Announced()

            let first = try await Self.appendWithoutWaiting(envelope, to: backend.mailboxes, announced: announced)
            let again = try await Self.appendWithoutWaiting(envelope, to: backend.mailboxes, announced: announced)

            #expect(first.receipt.isNew && !again.receipt.isNew)
            #expect(again.receipt.sequence == first.receipt.sequence)
            #expect(announced.all.count == 1)
            #expect(try await backend.mailboxes.depth(of: envelope.header.recipient) == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anAcknowledgementTakenWithoutWaitingDeletesWhatItNames(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let envelopes = (0..<3).map { _ in TestValues.envelope(from: alice, to: bob) }
            let announced = Announced()
            for envelope in envelopes {
                _ = try await Self.appendWithoutWaiting(envelope, to: backend.mailboxes, announced: announced)
            }
            let keys = [envelopes[0], envelopes[2]].map(\.header.messageKey)

            var write = try backend.mailboxes.enqueueAcknowledgeNow(keys, for: bob, at: TestValues.time())
            if write == nil {
                write = try await backend.mailboxes.enqueueAcknowledge(keys, for: bob, at: TestValues.time())
            }
            let deleted = try await #require(write).outcome()

            #expect(Set(deleted) == Set(keys))
            let left = try await backend.mailboxes.messages(for: bob, after: 0, limit: 10)
            #expect(left.map(\.envelope) == [envelopes[1]])
            // Remembered as acknowledged: a retry gets its first receipt and is not stored again.
            let retry = try await Self.appendWithoutWaiting(envelopes[0], to: backend.mailboxes, announced: announced)
            #expect(!retry.receipt.isNew && retry.receipt.sequence == 1)
            #expect(try await backend.mailboxes.depth(of: bob) == 1)
        }
    }

    /// A store may write appends and acknowledgements handed over together in whatever order or transactions suit it,
    /// except that an acknowledgement taken after the append of its own message applies after it.
    @Test(arguments: StorageBackendKind.allCases)
    func anAcknowledgementEnqueuedRightBehindItsMessagesAppendDeletesIt(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let acknowledged = (0..<60).map { _ in TestValues.envelope(from: alice, to: bob) }
            let kept = (0..<60).map { _ in TestValues.envelope(from: alice, to: bob) }
            var appends: [PendingWrite<MailboxReceipt>] = []
            var acknowledgements: [PendingWrite<[MessageKey]>] = []
            // Nothing is awaited until every write was handed over, so that most acknowledgements are taken while
            // their message's append is still being written.
            for (gone, stays) in zip(acknowledged, kept) {
                for envelope in [gone, stays] {
                    appends.append(
                        try await backend.mailboxes.enqueueAppend(
                            envelope,
                            receivedAt: TestValues.time(),
                            mailboxCapacity: Self.capacity,
                            mailboxQuota: .max,
                            announce: { _ in false }
                        )
                    )
                }
                acknowledgements.append(
                    try await backend.mailboxes.enqueueAcknowledge(
                        [gone.header.messageKey],
                        for: bob,
                        at: TestValues.time()
                    )
                )
            }

            for append in appends { #expect(try await append.outcome().isNew) }
            for (acknowledgement, gone) in zip(acknowledgements, acknowledged) {
                #expect(try await acknowledgement.outcome() == [gone.header.messageKey])
            }
            let left = try await backend.mailboxes.messages(for: bob, after: 0, limit: 200)
            #expect(left.map(\.envelope) == kept)
            #expect(try await backend.mailboxes.depth(of: bob) == kept.count)
        }
    }
}
