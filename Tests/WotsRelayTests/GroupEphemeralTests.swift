import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsStorageSQLite
import WotsTesting

/// Group typing: a `send_group` frame with `"ephemeral": true` is checked like a group send, each member's slot goes to
/// the sockets it opened with `?groups=true`, and nothing is stored; and a retried group send after every member
/// acknowledged it reaches nobody again.
@Suite struct GroupEphemeralTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol

    /// A relay on a real SQLite file, so a test can read the file's tables afterwards.
    func withSQLiteRelay(_ body: @Sendable (StreamRelay, SQLiteDatabase) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-group-typing-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("relay.sqlite").path)
        defer { try? database.close() }
        try await StreamRelay.run(storage: .sqlite(database)) { relay in try await body(relay, database) }
    }

    /// How many rows a table of the database file holds.
    func rowCount(of table: String, in database: SQLiteDatabase) async throws -> Int {
        let table = try #require(PortableTable.sessionFree.first { $0.name == table })
        return try await database.portableSnapshot().rows(of: table, after: nil, limit: 1_000).count
    }

    func typing(from sender: TestIdentity, to recipients: [TestIdentity]) throws -> GroupSendRequest {
        let sealed = try sealForGroup(#"{"state":"started","type":"typing"}"#, from: sender, to: recipients)
        return GroupSendRequest(body: sealed.envelope, slots: sealed.slots)
    }

    @Test func groupTypingReachesEachMembersGroupsSocketsWithItsOwnSlotAndLeavesNoRow() async throws {
        try await self.withSQLiteRelay { relay, database in
            let bobSocket = try await relay.connect(as: bob, groups: true)
            let carolSocket = try await relay.connect(as: carol, groups: true)
            let carolWithoutGroups = try await relay.connect(as: carol)
            let sender = try await relay.connect(as: alice, groups: true)
            let request = try self.typing(from: alice, to: [bob, carol])

            try await sender.send(.sendGroupEphemeral(request), ref: "typing")

            let id = request.body.header.messageID
            #expect(await sender.next() == .frame(.ephemeralAccepted(ref: "typing", id: id, delivered: 2)))
            for (member, socket) in [(bob, bobSocket), (carol, carolSocket)] {
                guard case .ephemeralGroupMessage(_, let body, let slot) = await socket.next().frame else {
                    Issue.record("\(member.nickname) did not get the group typing")
                    continue
                }
                #expect(body == request.body)
                let opened = try body.open(
                    slot: slot,
                    as: member.token,
                    identity: member.identity,
                    senderKeys: alice.publicKeys
                )
                #expect(opened.plaintext == Array(#"{"state":"started","type":"typing"}"#.utf8))
            }
            #expect(await carolWithoutGroups.next(timeout: .milliseconds(300)) == .timedOut)
            for table in ["group_bodies", "group_slots", "acknowledged_group_messages", "mailbox_messages"] {
                #expect(try await self.rowCount(of: table, in: database) == 0, "\(table) holds a row")
            }
            let later = try await relay.connect(as: bob, groups: true)
            #expect(await later.next(timeout: .milliseconds(300)) == .timedOut, "nothing waits for a new socket")
            for socket in [bobSocket, carolSocket, carolWithoutGroups, sender, later] { await socket.close() }
        }
    }

    @Test func groupTypingSignedByAnotherMemberIsRefusedAndReachesNobody() async throws {
        try await StreamRelay.run { relay in
            let bobSocket = try await relay.connect(as: bob, groups: true)
            let sender = try await relay.connect(as: alice)
            let forged = try self.typing(from: carol, to: [alice, bob])

            try await sender.send(.sendGroupEphemeral(forged), ref: "forged")

            let id = forged.body.header.messageID
            guard case .error("forged", id, .senderMismatch, _) = await sender.next().frame else {
                Issue.record("group typing naming another sender was not refused")
                return
            }
            #expect(await bobSocket.next(timeout: .milliseconds(300)) == .timedOut)
            await sender.close()
            await bobSocket.close()
        }
    }

    @Test func groupTypingWithSwappedSlotsIsRefused() async throws {
        try await StreamRelay.run { relay in
            let bobSocket = try await relay.connect(as: bob, groups: true)
            let sender = try await relay.connect(as: alice)
            var swapped = try self.typing(from: alice, to: [bob, carol])
            let keys = swapped.slots.map(\.wrappedKey)
            swapped.slots[0].wrappedKey = keys[1]
            swapped.slots[1].wrappedKey = keys[0]

            try await sender.send(.sendGroupEphemeral(swapped), ref: "swapped")

            guard case .error("swapped", _, .badSignature, _) = await sender.next().frame else {
                Issue.record("group typing with swapped slots was not refused")
                return
            }
            #expect(await bobSocket.next(timeout: .milliseconds(300)) == .timedOut)
            await sender.close()
            await bobSocket.close()
        }
    }

    @Test func aStoredGroupSendOnTheStreamIsRefusedAsAnInvalidFrame() async throws {
        try await StreamRelay.run { relay in
            let sender = try await relay.connect(as: alice)
            let request = try self.typing(from: alice, to: [bob])
            try await sender.sendRaw(
                #"{"type":"send_group","ref":"stored","body":"\#(request.body.serialized.base64)","slots":""#
                    + request.slots[0].wrappedKey.base64 + #""}"#
            )
            guard case .error("stored", nil, .invalidFrame, _) = await sender.next().frame else {
                Issue.record("a send_group frame without ephemeral was not refused")
                return
            }
            await sender.close()
        }
    }

    @Test func aRetriedGroupSendAfterEveryMemberAcknowledgedIsAnsweredAndReachesNobodyAgain() async throws {
        try await StreamRelay.run { relay in
            let sealed = try sealForGroup("once", from: alice, to: [bob, carol])
            let first = try await relay.client.sendGroup(sealed, session: relay.aliceSession)
            #expect(first.status == .accepted)
            let key = sealed.envelope.header.messageKey
            for session in [relay.bobSession, relay.carolSession] {
                let acknowledged = try await relay.client.acknowledge([key], session: session)
                #expect(try acknowledged.decode(AcknowledgeResponse.self).messages == [key])
            }
            let bobSocket = try await relay.connect(as: bob, groups: true)

            let retry = try await relay.client.sendGroup(sealed, session: relay.aliceSession)

            #expect(retry.status == .accepted)
            let firstReceipt = try first.decode(GroupSendReceipt.self)
            #expect(try retry.decode(GroupSendReceipt.self) == firstReceipt)
            #expect(await bobSocket.next(timeout: .milliseconds(300)) == .timedOut, "bob got it again")
            await bobSocket.close()
        }
    }
}
