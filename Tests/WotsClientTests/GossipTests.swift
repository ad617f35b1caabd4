import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting
import WotsTransparency

@testable import WotsClient

/// A relay that shows two people different logs is caught the first time they talk: every message carries its
/// sender's log head, and the recipient checks it against its own view of the same relay's log.
@Suite struct GossipTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol
    let mallory = TestIdentities.mallory

    /// The log head a client of `relay` holds once it has seen the relay's newest checkpoint.
    func head(of relay: ScriptedRelayLog) async throws -> LogHead {
        let note = try SignedNote(parsing: String(decoding: try await relay.checkpointNote(), as: UTF8.self))
        let checkpoint = try Checkpoint(text: note.text)
        return try LogHead(size: checkpoint.size, root: checkpoint.rootHash.bytes)
    }

    /// Alice's view: the honest relay's log of alice and bob, already verified once.
    func withAlicesView(_ body: (ScriptedRelayLog, LogAuditor, LocalStore) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        let relay = ScriptedRelayLog(key: try ScriptedRelayLog.makeKey())
        try relay.register(self.alice)
        try relay.register(self.bob)
        let auditor = LogAuditor(relay: relay, store: store)
        _ = try await auditor.verify(try await relay.lookup(nickname: self.bob.nickname))
        try await body(relay, auditor, store)
    }

    @Test func aPeerWhoSawTheSameLogEarlierLaterOrNowPasses() async throws {
        try await self.withAlicesView { relay, auditor, _ in
            let now = try await self.head(of: relay)
            try await auditor.checkGossip(now, from: "bob")
            relay.serve(size: 1)
            let earlier = try await self.head(of: relay)
            relay.serve(size: nil)
            try await auditor.checkGossip(earlier, from: "bob")
            try relay.register(self.carol)
            try await auditor.checkGossip(try await self.head(of: relay), from: "bob")
            #expect(try await auditor.gossipHead()?.size == 3)
        }
    }

    @Test func aPeerShownAForkedLogIsCaughtAtEverySize() async throws {
        try await self.withAlicesView { relay, auditor, _ in
            // The same relay (same log key) shows bob another history, with mallory registered in between.
            let fork = ScriptedRelayLog(key: relay.key)
            try fork.register(self.alice)
            try fork.register(self.mallory)
            let sameSize = try await self.head(of: fork)
            try fork.register(self.bob)
            let larger = try await self.head(of: fork)
            try relay.register(self.carol)
            try relay.register(self.mallory)
            try await auditor.advance(toNote: relay.checkpointNote())
            for head in [sameSize, larger] {
                let error = await #expect(throws: WotsError.self) { try await auditor.checkGossip(head, from: "bob") }
                #expect(error?.code == .logForked, "size \(head.size)")
            }
            let beyond = try LogHead(size: 9, root: Array(repeating: 1, count: 32))
            let error = await #expect(throws: WotsError.self) { try await auditor.checkGossip(beyond, from: "bob") }
            #expect(error?.code == .logForked)
            #expect(error?.reason.contains("different logs to different people") == true)
        }
    }

    @Test func aMessageCarryingAForkedHeadIsNotShownAndStaysInTheMailbox() async throws {
        try await self.withAlicesView { relay, auditor, _ in
            let fork = ScriptedRelayLog(key: relay.key)
            try fork.register(self.mallory)
            try fork.register(self.bob)
            var contacts = ContactBook()
            contacts.pin(self.bob.entry())
            var opener = MessageOpener(
                relay: try RelayClient(baseURL: "http://127.0.0.1:9"),
                token: self.alice.token,
                identity: self.alice.identity,
                contacts: contacts,
                seen: SeenMessages(),
                auditor: auditor
            )
            func delivered(carrying head: LogHead) throws -> DeliveredMessage {
                let envelope = try Envelope.seal(
                    plaintext: MessageBody(.text("hi alice"), log: head).encoded(),
                    from: self.bob.token,
                    identity: self.bob.identity,
                    to: self.alice.token,
                    recipientKeys: self.alice.publicKeys
                )
                return DeliveredMessage(seq: 1, receivedAt: Date(), envelope: envelope)
            }
            let honest = try await opener.open(try delivered(carrying: try await self.head(of: relay)))
            #expect(honest?.text == "hi alice")
            let error = await #expect(throws: WotsError.self) {
                _ = try await opener.open(try delivered(carrying: try await self.head(of: fork)))
            }
            #expect(error?.code == .logForked)
        }
    }
}
