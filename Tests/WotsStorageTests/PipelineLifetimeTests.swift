import Foundation
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// A write the pipeline took is committed even when everything else let go of its database meanwhile: the writer
/// keeps the database while it has writes to commit.
@Suite struct PipelineLifetimeTests {
    @Test func aWriteStagedBeforeItsDatabaseIsLetGoIsStillCommitted() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("relay.sqlite").path
        var configuration = SQLiteDatabase.Configuration()
        // The writer waits this long for the acknowledgement of a message handed to a reader, so the database is let
        // go while the write is still staged.
        configuration.acknowledgementWait = .milliseconds(300)
        let bob = TestValues.token()
        let message = TestValues.envelope(from: TestValues.token(), to: bob)
        var mailboxes: SQLiteMailboxRepository? = SQLiteMailboxRepository(
            database: try await SQLiteDatabase(path: path, configuration: configuration)
        )
        _ = try await mailboxes?.append(
            TestValues.envelope(from: TestValues.token(), to: bob),
            receivedAt: TestValues.time(),
            mailboxCapacity: 100
        )
        let write = try #require(try await mailboxes?.stage(message, announce: { _ in true }))
        mailboxes = nil

        let receipt = try await write.outcome()
        let reopened = SQLiteMailboxRepository(database: try await SQLiteDatabase(path: path))
        let stored = try await reopened.messages(for: bob, after: 0, limit: 10)
        #expect(stored.map(\.sequence).contains(receipt.sequence))
        #expect(stored.contains { $0.envelope == message })
    }
}
