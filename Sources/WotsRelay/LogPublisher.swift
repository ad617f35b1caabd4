import Foundation
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTransparency

/// Publishes the transparency log: signs checkpoints of its current head with the log key and reads proofs from
/// storage (O(log n) node reads each).
struct LogPublisher: Sendable {
    /// The relay secret the log key's 32-byte Ed25519 seed is kept under, made at first start.
    static let seedSecretName = "log-ed25519-seed"

    let log: any TransparencyLogRepository
    let key: LogKey

    /// The log's origin and key name: `wots-relay/` and the relay id in lowercase hex, so a log is named by the
    /// identity clients pin.
    static func origin(relayID: [UInt8]) -> String {
        "wots-relay/" + Hex.encode(relayID)
    }

    /// Loads the log key (made and stored at first start) and logs the directory entries made before the log.
    static func load(storage: RelayStorage, relayID: [UInt8]) async throws -> (LogPublisher, backfilled: Int) {
        let seed = try await storage.authentication.relaySecret(
            named: Self.seedSecretName,
            storingIfAbsent: SecureRandom.bytes(Ed25519PrivateKey.seedByteCount)
        )
        let key = try LogKey(name: Self.origin(relayID: relayID), privateKey: try Ed25519PrivateKey(seed: seed))
        let backfilled = try await storage.log.logUnloggedEntries(at: Date())
        return (LogPublisher(log: storage.log, key: key), backfilled)
    }

    /// The checkpoint of the log's current head, signed.
    func signedCheckpoint() async throws -> (checkpoint: Checkpoint, note: SignedNote) {
        let head = try await self.log.treeHead()
        let checkpoint = try Checkpoint(origin: self.key.name, size: head.size, rootHash: head.rootHash)
        return (checkpoint, try checkpoint.signed(with: self.key))
    }

    /// The token's newest leaf with its inclusion proof against a freshly signed checkpoint; nil when the log holds
    /// no leaf for it.
    func inclusion(of token: Token) async throws -> LogInclusion? {
        guard let index = try await self.log.latestLeafIndex(of: token) else { return nil }
        let (checkpoint, note) = try await self.signedCheckpoint()
        let leaf = try await self.log.leaves(in: index..<(index + 1))[0]
        let proof = try await MerkleTree.inclusionProof(forLeafAt: index, treeSize: checkpoint.size, reader: self.log)
        return LogInclusion(
            leafIndex: index,
            leaf: Data(leaf).base64EncodedString(),
            proof: proof.hashes.map(\.base64),
            checkpoint: note.formatted
        )
    }
}
