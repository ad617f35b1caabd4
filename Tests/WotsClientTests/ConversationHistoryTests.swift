import Foundation
import GRDB
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@testable import WotsClient

@Suite struct ConversationHistoryTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    func text(_ words: String, at seconds: Double = 1_750_000_000, expiresAt: Date? = nil) -> HistoryEntry {
        HistoryEntry(
            peer: bob.token,
            sender: bob.token,
            id: UUID(),
            sentAt: Date(timeIntervalSince1970: seconds),
            expiresAt: expiresAt,
            status: .received,
            content: Array(#"{"type":"text","text":"\#(words)"}"#.utf8)
        )
    }

    @Test func anOlderTimerChangeArrivingLateIsIgnoredAndTiesGoToTheGreaterToken() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        let history = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        let now = Date(timeIntervalSince1970: 1_800_000_000.123)
        #expect(try history.setDisappearAfter(60, with: bob.token, setAt: now, setBy: bob.token))
        #expect(try !history.setDisappearAfter(5, with: bob.token, setAt: now.addingTimeInterval(-1), setBy: bob.token))
        #expect(try history.disappearAfter(with: bob.token) == 60)

        let later = now.addingTimeInterval(0.001)
        let (low, high) =
            alice.token.bytes.lexicographicallyPrecedes(bob.token.bytes)
            ? (alice.token, bob.token) : (bob.token, alice.token)
        #expect(try history.setDisappearAfter(9, with: bob.token, setAt: later, setBy: low))
        #expect(try !history.setDisappearAfter(8, with: bob.token, setAt: later, setBy: low))
        #expect(try history.setDisappearAfter(0, with: bob.token, setAt: later, setBy: high))
        #expect(try !history.setDisappearAfter(7, with: bob.token, setAt: later, setBy: low))
        #expect(try history.disappearAfter(with: bob.token) == 0)
    }

    @Test func contentIsEncryptedOnDiskAndReadsBackWithTheSecretDerivedKeys() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        let entry = text("meet at the old mill")
        do {
            let history = try ConversationHistory(
                folder: folder.home,
                account: alice.token,
                keys: try alice.secretKeys()
            )
            #expect(try history.record(entry))
            #expect(try !history.record(entry))
        }
        let file = folder.home.appendingPathComponent(ConversationHistory.fileName)
        #expect(try mode(of: file) == 0o600)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.range(of: Data("old mill".utf8)) == nil)

        let reopened = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        #expect(try reopened.entries(with: bob.token) == [entry])
    }

    @Test func otherKeysCannotOpenTheHistory() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        _ = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        #expect(throws: WotsError(.wrongSecret, "")) {
            try ConversationHistory(folder: folder.home, account: alice.token, keys: try bob.secretKeys())
        }
    }

    @Test func aRowMovedOntoAnotherMessageFailsItsCheck() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        let history = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        let first = text("first")
        let second = text("second", at: 1_750_000_001)
        try history.record(first)
        try history.record(second)
        try history.queue.write { db in
            try db.execute(
                sql: "UPDATE messages SET content = (SELECT content FROM messages WHERE id = ?) WHERE id = ?",
                arguments: [first.id.rawBytes, second.id.rawBytes]
            )
        }
        #expect(throws: WotsError(.localStore, "")) { try history.entries(with: bob.token) }
    }

    @Test func statusOnlyMovesForward() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        let history = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        var sent = text("hello")
        sent.sender = alice.token
        sent.status = .sent
        try history.record(sent)
        #expect(try history.advance([sent.key], to: .read) == [sent.key])
        #expect(try history.advance([sent.key], to: .delivered).isEmpty)
        #expect(try history.entry(sent.key)?.status == .read)
    }

    @Test func expiredMessagesAreDeletedAtTheirTime() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try LocalStore(home: folder.home).prepareHome()
        let history = try ConversationHistory(folder: folder.home, account: alice.token, keys: try alice.secretKeys())
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let lasting = text("stays")
        let fleeting = text("goes", expiresAt: now.addingTimeInterval(2))
        try history.record(lasting)
        try history.record(fleeting)
        #expect(try history.nextExpiry() == fleeting.expiresAt)
        #expect(try history.deleteExpired(now: now.addingTimeInterval(1.999)).isEmpty)
        #expect(try history.deleteExpired(now: now.addingTimeInterval(2)).map(\.key) == [fleeting.key])
        #expect(try history.entries(with: bob.token) == [lasting])
    }
}
