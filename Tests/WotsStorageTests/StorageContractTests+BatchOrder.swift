import Foundation
import Testing
import WotsCore
import WotsStorage

/// A batch of appends is numbered as the same appends one by one would be, whether or not any of them is refused.
extension StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func aBatchOfNewEnvelopesToSeveralRecipientsIsNumberedInBatchOrder(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob, carol) = (TestValues.token(), TestValues.token(), TestValues.token())
            _ = try await backend.mailboxes.append(
                TestValues.envelope(from: alice, to: bob),
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )
            let toBob = (0..<3).map { _ in TestValues.envelope(from: alice, to: bob) }
            let toCarol = [
                TestValues.envelope(from: alice, to: carol, expiresAt: Self.laterThanEveryTestTime),
                TestValues.envelope(from: alice, to: carol),
            ]
            let batch = [toBob[0], toCarol[0], toBob[1], toCarol[1], toBob[2]]

            let outcomes = try await backend.mailboxes.append(
                batch: batch,
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity
            )

            #expect(try outcomes.map { try $0.get().sequence } == [2, 1, 3, 2, 4])
            #expect(try outcomes.allSatisfy { try $0.get().isNew })
            let bobs = try await backend.mailboxes.messages(for: bob, after: 1, limit: 10)
            #expect(bobs.map(\.envelope) == toBob && bobs.map(\.sequence) == [2, 3, 4])
            let carols = try await backend.mailboxes.messages(for: carol, after: 0, limit: 10)
            #expect(carols.map(\.envelope) == toCarol && carols.map(\.sequence) == [1, 2])
            #expect(try await backend.mailboxes.depth(of: bob) == 4)
            #expect(try await backend.mailboxes.depth(of: carol) == 2)
            // The expiry came with its message: once it passes, carol's first message is no longer offered.
            let afterExpiry = Date(timeIntervalSince1970: Double(Self.laterThanEveryTestTime) / 1_000 + 1)
            let left = try await backend.mailboxes.messages(for: carol, after: 0, limit: 10, at: afterExpiry)
            #expect(left.map(\.envelope) == [toCarol[1]])
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anEnvelopeOverTheQuotaInABatchLeavesRoomForASmallerOneAfterIt(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let (alice, bob) = (TestValues.token(), TestValues.token())
            let small = TestValues.envelope(from: alice, to: bob)
            var large = TestValues.envelope(from: alice, to: bob)
            large.ciphertext = TestValues.randomBytes(4_096)
            let alsoSmall = TestValues.envelope(from: alice, to: bob)
            let quota = small.serialized.count + alsoSmall.serialized.count

            let outcomes = try await backend.mailboxes.append(
                batch: [small, large, alsoSmall],
                receivedAt: TestValues.time(),
                mailboxCapacity: Self.capacity,
                mailboxQuota: quota
            )

            #expect(try outcomes[0].get().sequence == 1)
            #expect(throws: WotsError(.mailboxQuotaExceeded, "")) { try outcomes[1].get() }
            #expect(try outcomes[2].get().sequence == 2)
            #expect(
                try await backend.mailboxes.messages(for: bob, after: 0, limit: 10).map(\.envelope) == [
                    small, alsoSmall,
                ]
            )
        }
    }

    /// 2100-01-01, after every time these tests store messages at.
    static let laterThanEveryTestTime: UInt64 = 4_102_444_800_000
}
