import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting
import WotsTransparency

/// The transparency log over HTTP: checkpoints signed by the key `GET /v1/relay` names, lookups that prove their
/// entry is in the log, proofs and entries for monitors.
@Suite struct LogRouteTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    /// The relay's log verifier, read from `GET /v1/relay` as a client does.
    func verifier(_ client: some TestClientProtocol) async throws -> NoteVerifier {
        let identity = try await client.request("/v1/relay", method: .get).decode(RelayIdentity.self)
        return try NoteVerifier(verifierKey: try #require(identity.logKey))
    }

    func checkpoint(_ client: some TestClientProtocol, verifier: NoteVerifier) async throws -> Checkpoint {
        let response = try await client.request("/v1/log/checkpoint", method: .get)
        #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
        return try Checkpoint(
            verifyingNote: Array(response.body.readableBytesView),
            origin: verifier.name,
            verifiers: [verifier]
        )
    }

    @Test func aLookupCarriesItsLeafAndAProofAgainstASignedCheckpoint() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(self.alice)
            try await client.register(self.bob)
            let verifier = try await self.verifier(client)
            #expect(verifier.name == "wots-relay/" + harness.relay.relayID.map { String(format: "%02x", $0) }.joined())
            let lookup = try await client.request("/v1/directory/bob", method: .get).decode(DirectoryLookup.self)
            #expect(lookup.entry.publicKeys == self.bob.publicKeys)
            let log = try #require(lookup.log)
            let checkpoint = try Checkpoint(
                verifyingNote: Array(log.checkpoint.utf8),
                origin: verifier.name,
                verifiers: [verifier]
            )
            #expect(checkpoint.size == 2)
            #expect(log.leafIndex == 1)
            let leaf = try #require(Data(base64Encoded: log.leaf).map(Array.init))
            let proof = InclusionProof(
                leafIndex: log.leafIndex,
                treeSize: checkpoint.size,
                hashes: try log.proof.map(MerkleHash.init(base64:))
            )
            try proof.verify(leafHash: MerkleTree.leafHash(leaf), rootHash: checkpoint.rootHash)
            let event = try DirectoryLogEvent(leafBytes: leaf)
            #expect(
                event.kind == .registered && event.token == self.bob.token && event.publicKeys == self.bob.publicKeys
            )
            try event.verifyAttestation(relayID: harness.relay.relayID, previousKeys: nil)
            let byToken = try await client.request("/v1/directory/token/\(self.bob.token)", method: .get)
            #expect(try byToken.decode(DirectoryLookup.self).log?.leafIndex == 1)
        }
    }

    @Test func aRotationIsLoggedSignedByTheOldAndTheNewKeys() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(self.bob)
            let session = try await client.login(self.bob)
            let newIdentity = TestIdentities.carol.identity
            let rotation = try AccountRouteTests().rotationRequest(for: self.bob, to: newIdentity)
            let rotated = try await client.request(
                "/v1/keys/rotate",
                method: .post,
                session: session,
                body: try jsonBody(rotation)
            )
            #expect(rotated.status == .ok)
            let entries = try await client.request("/v1/log/entries?start=0&end=2", method: .get)
                .decode(LogEntriesResponse.self)
            let events = try entries.entries.map {
                try DirectoryLogEvent(leafBytes: Array(try #require(Data(base64Encoded: $0))))
            }
            #expect(events.map(\.kind) == [.registered, .keysRotated])
            #expect(events[1].previousLeafIndex == 0)
            #expect(events[1].publicKeys == newIdentity.publicKeys)
            try events[1].verifyAttestation(relayID: harness.relay.relayID, previousKeys: events[0].publicKeys)
            #expect(throws: WotsError.self) {
                try events[1].verifyAttestation(relayID: harness.relay.relayID, previousKeys: newIdentity.publicKeys)
            }
        }
    }

    @Test func eachNewCheckpointIsConsistentWithTheOldOne() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let verifier = try await self.verifier(client)
            let empty = try await self.checkpoint(client, verifier: verifier)
            #expect(empty.size == 0 && empty.rootHash == MerkleTree.emptyRootHash)
            try await client.register(self.alice)
            let one = try await self.checkpoint(client, verifier: verifier)
            try await DirectoryRouteTests.fill(harness.relay.storage.directory, count: 6)
            let seven = try await self.checkpoint(client, verifier: verifier)
            #expect(seven.size == 7)
            let response = try await client.request("/v1/log/proof/consistency?from=1&to=7", method: .get)
                .decode(ConsistencyProofResponse.self)
            let proof = ConsistencyProof(
                oldSize: 1,
                newSize: 7,
                hashes: try response.hashes.map(MerkleHash.init(base64:))
            )
            try proof.verify(oldRoot: one.rootHash, newRoot: seven.rootHash)
            let inclusion = try await client.request("/v1/log/proof/inclusion?index=3&size=7", method: .get)
                .decode(InclusionProofResponse.self)
            #expect(inclusion.hashes.count == 3)
        }
    }

    @Test(arguments: [
        ("/v1/log/entries?start=0&end=101", ErrorCode.invalidArgument),
        ("/v1/log/entries?start=2&end=2", .invalidArgument),
        ("/v1/log/entries?start=0&end=3", .proofOutOfRange),
        ("/v1/log/entries?start=-1&end=1", .invalidArgument),
        ("/v1/log/proof/inclusion?index=2&size=2", .proofOutOfRange),
        ("/v1/log/proof/inclusion?index=0&size=3", .proofOutOfRange),
        ("/v1/log/proof/inclusion?size=1", .invalidArgument),
        ("/v1/log/proof/consistency?from=0&to=2", .proofOutOfRange),
        ("/v1/log/proof/consistency?from=2&to=1", .proofOutOfRange),
    ])
    func requestsOutsideTheLogAreRefusedWith400(uri: String, code: ErrorCode) async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(self.alice)
            try await client.register(self.bob)
            let response = try await client.request(uri, method: .get)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == code, "\(response.errorMessage ?? "")")
        }
    }

    @Test func theLogKeyIsMadeOnceAndKeptInStorage() async throws {
        let storage = RelayStorage.inMemory()
        let first = try await RelayHarness.make(storage: storage)
        let second = try await RelayHarness.make(storage: storage)
        #expect(first.relay.logVerifierKey == second.relay.logVerifierKey)
        #expect(try await RelayHarness.make().relay.logVerifierKey != first.relay.logVerifierKey)
    }
}
