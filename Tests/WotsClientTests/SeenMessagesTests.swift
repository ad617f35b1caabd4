import Foundation
import Testing
import WotsClient
import WotsCore
import WotsTesting

@Suite struct SeenMessagesTests {
    private static func key(from sender: Token = TestIdentities.alice.token, id: UUID = UUID()) -> MessageKey {
        MessageKey(sender: sender, id: id)
    }

    @Test func aMessageIsSeenOnce() {
        var seen = SeenMessages()
        let key = Self.key()
        let first = seen.insert(key)
        let second = seen.insert(key)
        #expect(first)
        #expect(!second)
        #expect(seen.contains(key))
    }

    @Test func twoSendersUsingOneIdAreTwoMessages() {
        var seen = SeenMessages()
        let id = UUID()
        seen.insert(Self.key(from: TestIdentities.alice.token, id: id))
        #expect(!seen.contains(Self.key(from: TestIdentities.bob.token, id: id)))
        let inserted = seen.insert(Self.key(from: TestIdentities.bob.token, id: id))
        #expect(inserted)
    }

    @Test func theOldestKeysAreForgottenPastTheCapacity() {
        var seen = SeenMessages(capacity: 3)
        let keys = (0..<5).map { _ in Self.key() }
        for key in keys { seen.insert(key) }
        #expect(seen.keys == Array(keys.suffix(3)))
        #expect(!seen.contains(keys[0]))
        #expect(seen.contains(keys[4]))
    }

    @Test func seenKeysSurviveSavingAndLoading() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        var seen = try store.seenMessages()
        let key = Self.key()
        seen.insert(key)
        try store.save(seen)
        #expect(try store.seenMessages().contains(key))
    }

    @Test func aFileOfBareIdsFromBeforePairsReadsAsEmpty() throws {
        let json = #"{"ids": ["3F2504E0-4F89-41D3-9A0C-0305E82C3301"], "capacity": 10}"#
        let seen = try JSONDecoder().decode(SeenMessages.self, from: Data(json.utf8))
        #expect(seen.keys.isEmpty)
        #expect(seen.capacity == 10)
    }
}
