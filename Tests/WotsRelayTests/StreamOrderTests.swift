import Foundation
import Synchronization
import Testing
import WotsCore
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// A socket's frames take effect in the order they were read, though the relay answers most of them on the socket's
/// event loop and hands the few that must wait for the database to a task.
@Suite struct StreamOrderTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol

    /// Two sends with one message id to two recipients: the first stored wins and the other is refused. The first
    /// frame waits in a task for carol's directory entry, held back here; the second could be stored on the event
    /// loop at once, and must wait behind it.
    @Test func aSendReadBehindOneThatWaitsForTheDatabaseIsStoredAfterIt() async throws {
        var storage = RelayStorage.inMemory()
        let directory = HeldDirectory(storage.directory, holding: carol.token)
        storage.directory = directory
        try await StreamRelay.run(storage: storage) { relay in
            let connection = try StreamEndTests.open(relay, session: relay.aliceSession)
            let warmUp = try StreamEndTests.text(ClientFrame(.send(try seal("hi", from: alice, to: bob)), ref: "w"))
            connection.send(WebSocketWire.text(warmUp))
            let warm = await connection.read(timeout: .seconds(30)) { Self.replies(in: $0).count == 1 }
            #expect(warm, "no reply to the first send: \(connection.text)")
            relay.relay.accounts.forget(carol.token)
            directory.hold()

            let id = Envelope.newMessageID()
            let frames = [
                ClientFrame(.send(try seal("first", from: alice, to: carol, id: id)), ref: "carol"),
                ClientFrame(.send(try seal("second", from: alice, to: bob, id: id)), ref: "bob"),
            ]
            connection.send(try frames.flatMap { WebSocketWire.text(try StreamEndTests.text($0)) })
            await directory.held()
            // Time for the relay to read the second frame while the first waits: it must not answer it meanwhile.
            let overtaken = await connection.read(timeout: .milliseconds(500)) { Self.replies(in: $0).count > 1 }
            #expect(!overtaken, "the second send was answered while the first waited: \(connection.text)")
            directory.release()

            let answered = await connection.read(timeout: .seconds(30)) { Self.replies(in: $0).count == 3 }
            #expect(answered, "the two sends were not both answered: \(connection.text)")
            let replies = Self.replies(in: connection.received).dropFirst()
            #expect(replies.first?.contains(#""ref":"carol""#) == true && replies.first?.contains("accepted") == true)
            #expect(
                replies.last?.contains(#""ref":"bob""#) == true
                    && replies.last?.contains("message_id_conflict") == true
            )
        }
    }

    /// The `accepted` and `error` frames in what was read, in order.
    static func replies(in bytes: [UInt8]) -> [String] {
        WebSocketWire.serverFrames(in: bytes).map(\.text).filter {
            $0.contains(#""type":"accepted""#) || $0.contains(#""type":"error""#)
        }
    }
}

/// A directory whose lookups of one token wait, while held, until released.
final class HeldDirectory: DirectoryRepository {
    private let base: any DirectoryRepository
    private let token: Token
    private let gate = Gate()

    init(_ base: any DirectoryRepository, holding token: Token) {
        self.base = base
        self.token = token
    }

    func hold() { self.gate.hold() }

    /// Returns once a lookup of the token is waiting.
    func held() async { await self.gate.held() }

    func release() { self.gate.release() }

    func entry(token: Token) async throws -> DirectoryEntry? {
        if token == self.token { await self.gate.pass() }
        return try await self.base.entry(token: token)
    }

    func create(_ entry: DirectoryEntry, attestation: [UInt8]) async throws {
        try await self.base.create(entry, attestation: attestation)
    }
    func undoCreate(token: Token) async throws { try await self.base.undoCreate(token: token) }
    func entry(nickname: Nickname) async throws -> DirectoryEntry? { try await self.base.entry(nickname: nickname) }
    func page(limit: PageLimit, after cursor: Cursor?) async throws -> Page<DirectoryEntry> {
        try await self.base.page(limit: limit, after: cursor)
    }
    func rotateKeys(token: Token, publicKeys: PublicKeys, fingerprint: Fingerprint, attestation: [UInt8])
        async throws -> DirectoryEntry
    {
        try await self.base.rotateKeys(
            token: token,
            publicKeys: publicKeys,
            fingerprint: fingerprint,
            attestation: attestation
        )
    }
    func delete(token: Token) async throws { try await self.base.delete(token: token) }
    func count() async throws -> Int { try await self.base.count() }
}
