import Foundation
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsStorageSQLite
import WotsTesting

/// `send` with `"ephemeral": true` (typing): checked like a send, handed to the recipient's open sockets, and never
/// stored (schema/stream.md).
@Suite struct EphemeralSendTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    /// A relay on a real SQLite file, so a test can read the file's tables afterwards.
    func withSQLiteRelay(_ body: @Sendable (StreamRelay, SQLiteDatabase) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-ephemeral-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("relay.sqlite").path)
        defer { try? database.close() }
        try await StreamRelay.run(storage: .sqlite(database)) { relay in try await body(relay, database) }
    }

    /// Every row of a mailbox table in the database file.
    func rows(of table: String, in database: SQLiteDatabase) async throws -> [PortableRow] {
        let table = try #require(PortableTable.sessionFree.first { $0.name == table })
        return try await database.portableSnapshot().rows(of: table, after: nil, limit: 1_000)
    }

    @Test func typingReachesTheConnectedPeerAndLeavesNoRowInTheDatabase() async throws {
        try await self.withSQLiteRelay { relay, database in
            let receiver = try await relay.connect(as: bob)
            let sender = try await relay.connect(as: alice)
            let now = Date()
            let typing = try sealV2(
                #"{"type":"typing","state":"started"}"#,
                from: alice,
                to: bob,
                sentAt: now,
                expiresAt: nil
            )

            try await sender.send(.sendEphemeral(typing), ref: "t1")

            #expect(
                await sender.next() == .frame(.ephemeralAccepted(ref: "t1", id: typing.header.messageID, delivered: 1))
            )
            guard case .ephemeralMessage(_, let envelope) = await receiver.next().frame else {
                Issue.record("the peer did not get the ephemeral message")
                return
            }
            #expect(envelope == typing)
            #expect(try await self.rows(of: "mailbox_messages", in: database).isEmpty)
            #expect(try await self.rows(of: "acknowledged_messages", in: database).isEmpty)
            #expect(try await relay.client.mailbox(session: relay.bobSession).isEmpty)

            // Not deduplicated: the same envelope again goes out again.
            try await sender.send(.sendEphemeral(typing), ref: "t2")
            #expect(
                await sender.next() == .frame(.ephemeralAccepted(ref: "t2", id: typing.header.messageID, delivered: 1))
            )
            guard case .ephemeralMessage = await receiver.next().frame else {
                Issue.record("the repeated ephemeral message did not reach the peer")
                return
            }
            await sender.close()
            await receiver.close()
        }
    }

    @Test func typingToEverySocketOfTheRecipientCountsThemAll() async throws {
        try await StreamRelay.run { relay in
            let phone = try await relay.connect(as: bob)
            let laptop = try await relay.connect(as: bob)
            let sender = try await relay.connect(as: alice)
            let typing = try sealV2("typing", from: alice, to: bob, sentAt: Date(), expiresAt: nil)

            try await sender.send(.sendEphemeral(typing), ref: "both")

            #expect(
                await sender.next()
                    == .frame(.ephemeralAccepted(ref: "both", id: typing.header.messageID, delivered: 2))
            )
            for socket in [phone, laptop] {
                guard case .ephemeralMessage(_, typing) = await socket.next().frame else {
                    Issue.record("a socket of the recipient did not get the ephemeral message")
                    return
                }
                await socket.close()
            }
            await sender.close()
        }
    }

    @Test func typingToAnOfflineRecipientIsAcceptedWithNoDeliveryAndNothingStored() async throws {
        try await self.withSQLiteRelay { relay, database in
            let sender = try await relay.connect(as: alice)
            let typing = try sealV2("typing", from: alice, to: bob, sentAt: Date(), expiresAt: nil)

            try await sender.send(.sendEphemeral(typing), ref: "alone")

            #expect(
                await sender.next()
                    == .frame(.ephemeralAccepted(ref: "alone", id: typing.header.messageID, delivered: 0))
            )
            #expect(try await self.rows(of: "mailbox_messages", in: database).isEmpty)
            let receiver = try await relay.connect(as: bob)
            #expect(await receiver.next(timeout: .milliseconds(300)) == .timedOut, "nothing waits for bob")
            await receiver.close()
            await sender.close()
        }
    }

    @Test func anEphemeralSendIsCheckedLikeASend() async throws {
        try await StreamRelay.run { relay in
            let sender = try await relay.connect(as: alice)
            let forged = try sealV2("typing", from: TestIdentities.carol, to: bob, sentAt: Date(), expiresAt: nil)

            try await sender.send(.sendEphemeral(forged), ref: "forged")

            guard case .error("forged", forged.header.messageID, .senderMismatch, _) = await sender.next().frame else {
                Issue.record("an ephemeral send from another sender was not refused")
                return
            }
            await sender.close()
        }
    }
}

extension RelayStorage {
    /// The relay's repositories on one SQLite database, as `wots-relay serve --database sqlite:…` builds them.
    static func sqlite(_ database: SQLiteDatabase) -> RelayStorage {
        RelayStorage(
            directory: SQLiteDirectoryRepository(database: database),
            privateRecords: SQLitePrivateRecordRepository(database: database),
            mailboxes: SQLiteMailboxRepository(database: database),
            authentication: SQLiteAuthenticationRepository(database: database),
            accounts: SQLiteAccountRepository(database: database),
            administration: SQLiteAdministrationRepository(database: database),
            log: SQLiteTransparencyLog(database: database),
            blobs: SQLiteBlobRepository(database: database),
            health: database.health,
            probe: { try await database.ping() }
        )
    }
}
