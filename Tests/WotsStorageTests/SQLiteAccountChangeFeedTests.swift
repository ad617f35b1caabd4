import Foundation
import Logging
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// A relay on an SQLite file hears of suspensions and deletions another process makes to the same file.
@Suite struct SQLiteAccountChangeFeedTests {
    @Test func changesMadeThroughAnotherConnectionArePublishedOnTheBus() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wots.sqlite").path
        // Two databases on one file: each has its own connections, as the relay and `wots-relay admin` do.
        let relay = try await SQLiteDatabase(path: path)
        let admin = try await SQLiteDatabase(path: path)
        defer {
            try? relay.close()
            try? admin.close()
        }
        let alice = TestValues.entry("alice")
        let bob = TestValues.entry("bob")
        try await SQLiteDirectoryRepository(database: admin).create(alice)
        try await SQLiteDirectoryRepository(database: admin).create(bob)
        let bus = EventBus()
        let changes = bus.subscribe(to: AccountChanged.self, bufferSize: 16)
        let feed = SQLiteAccountChangeFeed(
            database: relay,
            bus: bus,
            interval: .milliseconds(20),
            logger: Logger(label: "test")
        )
        try await SQLiteAdministrationRepository(database: admin).suspend(token: bob.token, at: TestValues.time())
        let afterBob = try await feed.publishChanges(after: 0)
        #expect(try await Self.first(1, of: changes) == [AccountChanged(token: bob.token, isFromAnotherProcess: true)])

        try await SQLiteAdministrationRepository(database: admin).suspend(token: alice.token, at: TestValues.time())
        try await SQLiteAccountRepository(database: admin).deleteAccount(token: alice.token)
        let afterAlice = try await feed.publishChanges(after: afterBob)
        #expect(afterAlice == afterBob + 2)
        #expect(
            try await Self.first(2, of: changes)
                == Array(repeating: AccountChanged(token: alice.token, isFromAnotherProcess: true), count: 2)
        )
        #expect(try await feed.publishChanges(after: afterAlice) == afterAlice, "nothing new, nothing published")
    }

    /// The next `count` events, failing after 5 s rather than waiting for ever.
    private static func first(_ count: Int, of changes: EventSubscription<AccountChanged>) async throws
        -> [AccountChanged]
    {
        try await Deadline.run(.seconds(5), "\(count) account changes") {
            var heard: [AccountChanged] = []
            for await change in changes {
                heard.append(change)
                if heard.count == count { break }
            }
            return heard
        }
    }
}
