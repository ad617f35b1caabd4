import Foundation
import Testing
import WotsClient

@Suite struct SeenMessagesTests {
    @Test func aMessageIdIsSeenOnce() {
        var seen = SeenMessages()
        let id = UUID()
        let first = seen.insert(id)
        let second = seen.insert(id)
        #expect(first)
        #expect(!second)
        #expect(seen.contains(id))
    }

    @Test func theOldestIdsAreForgottenPastTheCapacity() {
        var seen = SeenMessages(capacity: 3)
        let ids = (0..<5).map { _ in UUID() }
        for id in ids { seen.insert(id) }
        #expect(seen.ids == Array(ids.suffix(3)))
        #expect(!seen.contains(ids[0]))
        #expect(seen.contains(ids[4]))
    }

    @Test func seenIdsSurviveSavingAndLoading() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        var seen = try store.seenMessages()
        let id = UUID()
        seen.insert(id)
        try store.save(seen)
        #expect(try store.seenMessages().contains(id))
    }
}
