import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

@Suite struct ReceiptTests {
    @Test func aSentMessageReachesTheRecipientsInbox() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            _ = try await alice.send("hello bob", to: TestIdentities.bob.nickname)
            var texts: [String?] = []
            _ = try await bob.inbox(keep: false, show: { texts.append($0.text) })
            #expect(texts == ["hello bob"])
        }
    }
}
