import Foundation
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// `wots send --file` honours the conversation options a text send has: `--disappear` and `--wait-delivered`.
@Suite struct FileSendingTests {
    @Test func aFileSentWithATimerCarriesItAndCanBeWaitedOnUntilDelivered() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let file = relay.folder.url.appendingPathComponent("plan.txt")
            try Data("meet at noon".utf8).write(to: file)

            let sent = try await alice.sendFile(
                at: file.path,
                caption: nil,
                to: TestIdentities.bob.nickname,
                disappearAfter: 3_600
            )
            let aliceHistory = try alice.openHistory(try await alice.unlock())
            #expect(try aliceHistory.disappearAfter(with: TestIdentities.bob.token) == 3_600)

            var received: [ReceivedMessage] = []
            _ = try await bob.inbox(
                keep: false,
                downloads: AttachmentSaver(folder: relay.folder.url.appendingPathComponent("bob-downloads")),
                show: { received.append($0) }
            )
            let message = try #require(received.first { $0.id == sent.id })
            #expect(message.attachment?.name == "plan.txt")
            #expect(message.body?.disappearAfter == 3_600)
            let expiresAt = try #require(message.expiresAt)
            #expect(abs(expiresAt.timeIntervalSince(message.sentAt) - 3_600) < 0.001)

            #expect(try await alice.waitForDelivery(of: sent.id, timeout: .seconds(20)) != nil)
        }
    }

    @Test func aDisappearingFilesBlobIsDeletedAtExactlyItsMessagesExpiry() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let file = relay.folder.url.appendingPathComponent("plan.txt")
            try Data("meet at noon".utf8).write(to: file)
            let sent = try await alice.sendFile(
                at: file.path,
                caption: nil,
                to: TestIdentities.bob.nickname,
                disappearAfter: 60
            )

            var received: [ReceivedMessage] = []
            _ = try await bob.inbox(keep: true, show: { received.append($0) })
            let message = try #require(received.first { $0.id == sent.id })
            let reference = try #require(message.attachment)
            let blob = try #require(try await relay.relay.storage.blobs.blob(try BlobID(reference.blob)))
            // To the millisecond, the precision of the envelope and of every store.
            let milliseconds = { (date: Date?) in date.map { ($0.timeIntervalSince1970 * 1000).rounded() } }
            let expected = try #require(milliseconds(message.expiresAt))
            #expect(milliseconds(blob.expiresAt) == expected)
            #expect(milliseconds(blob.latestExpiry) == expected)
        }
    }

    @Test func aFileSentFromAConversationUnderATimerTakesTheTimerToItsBlob() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("files vanish here", to: TestIdentities.bob.nickname, disappearAfter: 60)
            let file = relay.folder.url.appendingPathComponent("plan.txt")
            try Data("meet at noon".utf8).write(to: file)
            let keeper = try ConversationKeeper(
                messenger: alice,
                unlocked: try await alice.unlock(),
                readReceipts: true
            )
            let sent = try await keeper.sendFile(at: file.path, to: TestIdentities.bob.token)

            var received: [ReceivedMessage] = []
            _ = try await bob.inbox(keep: true, show: { received.append($0) })
            let message = try #require(received.first { $0.id == sent.id })
            let expiresAt = try #require(message.expiresAt)
            let reference = try #require(message.attachment)
            let blob = try #require(try await relay.relay.storage.blobs.blob(try BlobID(reference.blob)))
            #expect(
                (blob.expiresAt.timeIntervalSince1970 * 1000).rounded()
                    == (expiresAt.timeIntervalSince1970 * 1000).rounded()
            )
        }
    }

    @Test func aFileWithoutATimerLeavesItsBlobTheRelaysUsualExpiry() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let file = relay.folder.url.appendingPathComponent("plan.txt")
            try Data("meet at noon".utf8).write(to: file)
            let sent = try await alice.sendFile(at: file.path, caption: nil, to: TestIdentities.bob.nickname)

            var received: [ReceivedMessage] = []
            _ = try await bob.inbox(keep: true, show: { received.append($0) })
            let message = try #require(received.first { $0.id == sent.id })
            #expect(message.expiresAt == nil)
            let reference = try #require(message.attachment)
            let blob = try #require(try await relay.relay.storage.blobs.blob(try BlobID(reference.blob)))
            #expect(blob.latestExpiry == nil)
        }
    }

    @Test func waitingOnAFileNobodyFetchedEndsUnconfirmed() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            _ = try await relay.account(TestIdentities.bob)
            let file = relay.folder.url.appendingPathComponent("plan.txt")
            try Data("meet at noon".utf8).write(to: file)
            let sent = try await alice.sendFile(at: file.path, caption: nil, to: TestIdentities.bob.nickname)
            #expect(try await alice.waitForDelivery(of: sent.id, timeout: .seconds(1)) == nil)
        }
    }
}
