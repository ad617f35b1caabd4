import Foundation
import Synchronization
import WotsCore
import WotsCrypto
import WotsTesting
import WotsTransparency

@testable import WotsClient

/// A relay's log and directory as an attacker runs them: the test decides every leaf, which entry a lookup shows
/// and which checkpoint is served. Checkpoints are signed with this relay's own log key, as a real relay's are.
final class ScriptedRelayLog: LogSource {
    struct State {
        var tree = InMemoryMerkleLog()
        var leaves: [[UInt8]] = []
        var newest: [Token: UInt64] = [:]
        /// What lookups answer, by token; defaults to what the newest leaf says.
        var shownEntries: [Token: DirectoryEntry] = [:]
        /// Serve checkpoints of this size instead of the whole log (a rollback).
        var servedSize: UInt64?
    }

    let baseURL: String
    let relayID: [UInt8]
    let key: LogKey
    let state = Mutex(State())

    init(baseURL: String = "http://scripted.relay", relayID: [UInt8] = Array(repeating: 7, count: 16), key: LogKey) {
        self.baseURL = baseURL
        self.relayID = relayID
        self.key = key
    }

    static func makeKey(relayID: [UInt8] = Array(repeating: 7, count: 16)) throws -> LogKey {
        try LogKey.generate(name: "wots-relay/" + relayID.map { String(format: "%02x", $0) }.joined())
    }

    // MARK: Writing the log

    @discardableResult
    func append(_ kind: DirectoryLogEvent.Kind, _ user: TestIdentity, keys: PublicKeys? = nil, attestation: [UInt8])
        -> UInt64
    {
        self.state.withLock { state in
            let event = DirectoryLogEvent(
                kind: kind,
                token: user.token,
                nickname: user.nickname,
                publicKeys: keys ?? user.publicKeys,
                timeMilliseconds: 1_700_000_000_000,
                previousLeafIndex: state.newest[user.token],
                attestation: attestation
            )
            let leaf = try! event.leafBytes()
            let index = UInt64(state.leaves.count)
            state.leaves.append(leaf)
            state.tree.append(leafHash: MerkleTree.leafHash(leaf))
            state.newest[user.token] = index
            return index
        }
    }

    /// `user`'s registration, signed by `user` itself as a real client signs it.
    @discardableResult
    func register(_ user: TestIdentity) throws -> UInt64 {
        let proof = try RegistrationProof.sign(
            relayID: self.relayID,
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.publicKeys,
            identity: user.identity
        )
        return self.append(.registered, user, attestation: proof)
    }

    func show(_ entry: DirectoryEntry) {
        self.state.withLock { $0.shownEntries[entry.token] = entry }
    }

    func serve(size: UInt64?) {
        self.state.withLock { $0.servedSize = size }
    }

    // MARK: LogSource

    func identity() async throws -> RelayIdentity {
        RelayIdentity(relayID: Data(self.relayID).base64EncodedString(), logKey: self.key.verifierKey)
    }

    func lookup(nickname: Nickname) async throws -> DirectoryLookup {
        let token = self.state.withLock { state in
            state.newest.keys.first { token in
                let index = state.newest[token]!
                return (try? DirectoryLogEvent(leafBytes: state.leaves[Int(index)]))?.nickname == nickname
            }
        }
        guard let token else { throw WotsError(.unknownNickname, "nobody is \(nickname)") }
        return try await self.lookup(token: token)
    }

    func lookup(token: Token) async throws -> DirectoryLookup {
        let (tree, leaves, index, shown, served) = self.state.withLock {
            ($0.tree, $0.leaves, $0.newest[token], $0.shownEntries[token], $0.servedSize)
        }
        guard let index else { throw WotsError(.unknownToken, "no account has token \(token)") }
        let event = try DirectoryLogEvent(leafBytes: leaves[Int(index)])
        let entry =
            shown
            ?? DirectoryEntry(
                token: token,
                nickname: event.nickname,
                publicKeys: event.publicKeys,
                fingerprint: event.publicKeys.fingerprint,
                registeredAt: Date(timeIntervalSince1970: 1_700_000_000)
            )
        let size = served ?? tree.size
        let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: size, reader: tree)
        return DirectoryLookup(
            entry: entry,
            log: LogInclusion(
                leafIndex: index,
                leaf: Data(leaves[Int(index)]).base64EncodedString(),
                proof: proof.hashes.map(\.base64),
                checkpoint: try await self.note(size: size, tree: tree)
            )
        )
    }

    func checkpointNote() async throws -> [UInt8] {
        let (tree, served) = self.state.withLock { ($0.tree, $0.servedSize) }
        return Array(try await self.note(size: served ?? tree.size, tree: tree).utf8)
    }

    func logEntries(start: UInt64, end: UInt64) async throws -> LogEntriesResponse {
        let leaves = self.state.withLock { $0.leaves }
        return LogEntriesResponse(
            start: start,
            entries: leaves[Int(start)..<Int(end)].map { Data($0).base64EncodedString() }
        )
    }

    func inclusionProof(index: UInt64, size: UInt64) async throws -> InclusionProofResponse {
        let tree = self.state.withLock { $0.tree }
        let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: size, reader: tree)
        return InclusionProofResponse(leafIndex: index, treeSize: size, hashes: proof.hashes.map(\.base64))
    }

    func consistencyProof(from: UInt64, to: UInt64) async throws -> ConsistencyProofResponse {
        let tree = self.state.withLock { $0.tree }
        let proof = try await MerkleTree.consistencyProof(from: from, to: to, reader: tree)
        return ConsistencyProofResponse(from: from, to: to, hashes: proof.hashes.map(\.base64))
    }

    private func note(size: UInt64, tree: InMemoryMerkleLog) async throws -> String {
        let root = try await MerkleTree.rootHash(treeSize: size, reader: tree)
        return try Checkpoint(origin: self.key.name, size: size, rootHash: root).signed(with: self.key).formatted
    }
}
