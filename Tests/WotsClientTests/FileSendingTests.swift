import Foundation
import Testing
import WotsCore
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
