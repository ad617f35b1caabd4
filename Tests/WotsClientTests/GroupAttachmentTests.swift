import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// Attachments in groups: the file is encrypted and uploaded once, as a blob every member may fetch; each member
/// checks and saves it; nobody else can fetch it.
@Suite struct GroupAttachmentTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob
    static let carol = TestIdentities.carol

    @Test func aFileSentToAGroupIsUploadedOnceAndEveryMemberSavesIt() async throws {
        try await LiveRelay.run { live in
            let (alice, bob, carol) = try await GroupReceiptTests.team(live)
            let file = live.folder.url.appendingPathComponent("route.txt")
            let content = Data(String(repeating: "north face, pitch 3\n", count: 5_000).utf8)
            try content.write(to: file)

            let sent = try await alice.sendGroupFile(at: file.path, caption: "tomorrow", to: "team")
            #expect(sent.recipients == 2)
            let stored = try await live.relay.storage.blobs.storedBytes()
            #expect(stored == AttachmentCipher.encryptedSize(plaintextSize: Int64(content.count)), "one blob, once")

            for (name, member) in [("bob", bob), ("carol", carol)] {
                let folder = live.folder.url.appendingPathComponent("\(name)-downloads")
                let events = try await member.groupInbox(keep: false, downloads: AttachmentSaver(folder: folder))
                let event = try #require(events.first { $0.id == sent.id })
                #expect(event.attachment?.name == "route.txt")
                #expect(event.text == "tomorrow")
                let saved = try #require(event.savedTo)
                #expect(try Data(contentsOf: URL(fileURLWithPath: saved)) == content)
                #expect(try await member.groupHistory("team").items.last?.attachment?.name == "route.txt")
            }
            #expect(try await live.relay.storage.blobs.storedBytes() == 0, "deleted once every member acknowledged it")
            #expect(try await alice.groupHistory("team").items.last?.attachment?.name == "route.txt")
        }
    }

    @Test func someoneOutsideTheGroupCannotFetchItsBlob() async throws {
        try await LiveRelay.run { live in
            let (alice, _, carol) = try await GroupReceiptTests.team(live)
            let mallory = try await live.account(TestIdentities.mallory)
            let file = live.folder.url.appendingPathComponent("secret.txt")
            try Data("members only".utf8).write(to: file)
            _ = try await alice.sendGroupFile(at: file.path, caption: nil, to: "team")

            // carol learns the blob id from the message, without downloading it.
            _ = try await carol.groupInbox(keep: false)
            let entry = try #require(try await carol.groupHistory("team").items.last)
            let history = try carol.openHistory(try await carol.unlock())
            let stored = try #require(try history.entry(MessageKey(sender: Self.alice.token, id: entry.id)))
            guard case .attachment(let reference) = try MessageBody(decoding: stored.content).content else {
                Issue.record("carol did not keep an attachment")
                return
            }
            _ = try await mallory.unlock()
            let refused = await #expect(throws: WotsError.self) {
                try await mallory.relay.downloadBlob(
                    try BlobID(reference.blob),
                    to: live.folder.url.appendingPathComponent("stolen").path,
                    size: 64
                )
            }
            #expect(refused?.code == .unknownBlob)
        }
    }

    @Test func aFileSentWithATimerExpiresWithItsMessage() async throws {
        try await LiveRelay.run { live in
            let (alice, _, carol) = try await GroupReceiptTests.team(live)
            let file = live.folder.url.appendingPathComponent("brief.txt")
            try Data("read and forget".utf8).write(to: file)
            let sent = try await alice.sendGroupFile(at: file.path, caption: nil, to: "team", disappearAfter: 600)
            let folder = live.folder.url.appendingPathComponent("carol-downloads")
            let event = try #require(
                try await carol.groupInbox(keep: false, downloads: AttachmentSaver(folder: folder)).first {
                    $0.id == sent.id
                }
            )
            let expiresAt = try #require(event.expiresAt)
            #expect(abs(expiresAt.timeIntervalSince(event.sentAt) - 600) < 0.001)
            #expect(try await carol.groupTimer("team") == 600)
        }
    }
}
