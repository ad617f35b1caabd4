import Foundation
import Synchronization
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// Receipts between two real clients through a real relay on loopback: delivered when the recipient's client stored a
/// message, read when a person saw it, never read when the recipient turned read receipts off.
@Suite struct ReceiptTests {
    let aliceUser = TestIdentities.alice
    let bobUser = TestIdentities.bob

    /// Runs alice's inbox (which applies receipts) and returns the statuses it reported.
    func statuses(seenBy alice: Messenger) async throws -> [HistoryEntry.Status] {
        var statuses: [HistoryEntry.Status] = []
        _ = try await alice.inbox(
            keep: false,
            show: { Issue.record("a receipt was shown as a message: \($0)") },
            event: { event in
                if case .status(_, let status, _) = event { statuses.append(status) }
            }
        )
        return statuses
    }

    func status(of id: UUID, in messenger: Messenger, sender: TestIdentity) async throws -> HistoryEntry.Status? {
        let history = try messenger.openHistory(try await messenger.unlock())
        return try history.entry(MessageKey(sender: sender.token, id: id))?.status
    }

    @Test func theSenderSeesDeliveredWhenTheRecipientFetchesAndReadWhenItIsShown() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            let first = try await alice.send("hello bob", to: bobUser.nickname)
            #expect(try await status(of: first.id, in: alice, sender: aliceUser) == .sent)

            // A script fetching (no person reading): delivered only.
            var shown: [String?] = []
            _ = try await bob.inbox(keep: false, readReceipts: false, show: { shown.append($0.text) })
            #expect(shown == ["hello bob"])
            #expect(try await statuses(seenBy: alice) == [.delivered])
            #expect(try await status(of: first.id, in: alice, sender: aliceUser) == .delivered)

            // A person reading: delivered, then read.
            let second = try await alice.send("are you there?", to: bobUser.nickname)
            _ = try await bob.inbox(keep: false, show: { _ in })
            #expect(try await statuses(seenBy: alice) == [.delivered, .read])
            #expect(try await status(of: second.id, in: alice, sender: aliceUser) == .read)
            // The recipient keeps what it received, too.
            #expect(try await status(of: second.id, in: bob, sender: aliceUser) == .received)
        }
    }

    @Test func withReadReceiptsOffTheSenderNeverSeesRead() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            #expect(try bob.updateSettings(readReceipts: false).readReceipts == false)
            let sent = try await alice.send("private thoughts", to: bobUser.nickname)
            _ = try await bob.inbox(keep: false, readReceipts: true, show: { _ in })
            #expect(try await statuses(seenBy: alice) == [.delivered])
            #expect(try await status(of: sent.id, in: alice, sender: aliceUser) == .delivered)
        }
    }

    @Test func sendWaitsOnTheStreamForTheDeliveredReceipt() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            let sent = try await alice.send("ping", to: bobUser.nickname)
            async let waited = alice.waitForDelivery(of: sent.id, timeout: .seconds(20))
            _ = try await bob.inbox(keep: false, readReceipts: false, show: { _ in })
            #expect(try await waited == .delivered)

            // The receipt is acknowledged as the wait ends (at the latest in the stream's last `ack` frame), so it
            // does not come again. The relay answers that frame after the socket closed: nothing to wait on but it.
            let mailboxes = relay.relay.storage.mailboxes
            let deadline = ContinuousClock.now + .seconds(20)
            while try await mailboxes.depth(of: aliceUser.token) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await mailboxes.depth(of: aliceUser.token) == 0, "the receipt stayed in alice's mailbox")
        }
    }

    @Test func waitingForAMessageNobodyFetchesTimesOut() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            _ = try await relay.account(bobUser)
            let sent = try await alice.send("anyone?", to: bobUser.nickname)
            #expect(try await alice.waitForDelivery(of: sent.id, timeout: .milliseconds(300)) == nil)
        }
    }

    @Test func theRelayStoresAReceiptAndAShortTextAtTheSameSize() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(aliceUser)
            let bob = try await relay.account(bobUser)
            _ = try await alice.send("ok", to: bobUser.nickname)
            _ = try await bob.unlock()
            let text = try #require(try await bob.relay.mailbox(after: 0, limit: 10).messages.first)
            _ = try await bob.inbox(keep: false, show: { _ in })
            _ = try await alice.unlock()
            let receipts = try await alice.relay.mailbox(after: 0, limit: 10).messages
            #expect(receipts.count == 2)  // delivered and read
            for receipt in receipts {
                #expect(receipt.envelope.serializedSize == text.envelope.serializedSize)
            }
        }
    }
}
