import Foundation
import WotsCore
import WotsTransparency

/// Checks what a relay says against its transparency log and keeps this client's view of that log.
///
/// Every checkpoint must be signed by the log key pinned at first use and extend the newest one seen before
/// (consistency proof); every directory entry must be the newest leaf of its token, proven included in such a
/// checkpoint, and carry its owner's signature when the owner made it.
struct LogAuditor: Sendable {
    let relay: any LogSource
    let store: LocalStore

    /// A directory entry as the log proves it.
    struct Verified: Sendable {
        var entry: DirectoryEntry
        var leafIndex: UInt64
        var event: DirectoryLogEvent
        var checkpoint: Checkpoint
    }

    /// The pinned relay id and log verifier for this relay, pinning the relay's own at first use.
    /// - Throws: `relay_changed` when the relay now names another log key than the pinned one.
    func pinned() async throws -> (relayID: [UInt8], verifier: NoteVerifier, checkpoint: Checkpoint?) {
        var view = try self.store.logView()
        let pin: LogView.Relay
        if let known = view.relays[self.relay.baseURL] {
            pin = known
        } else {
            let identity = try await self.relay.identity()
            guard let key = identity.logKey else {
                throw WotsError(.invalidProof, "\(self.relay.baseURL) publishes no transparency log key")
            }
            pin = LogView.Relay(relayID: identity.relayID, verifierKey: key, checkpoint: nil)
            view.relays[self.relay.baseURL] = pin
            try self.store.save(view)
        }
        let verifier = try NoteVerifier(verifierKey: pin.verifierKey)
        let checkpoint = try pin.checkpoint.map {
            try Checkpoint(verifyingNote: Array($0.utf8), origin: verifier.name, verifiers: [verifier])
        }
        return (Array(Data(base64Encoded: pin.relayID) ?? Data()), verifier, checkpoint)
    }

    /// Verifies a signed checkpoint note and moves the kept view to it once it is proven to extend the old one.
    /// - Throws: `log_forked` for a smaller tree than seen before, another tree of the same size, or a failed
    ///   consistency proof; the note's own verification errors (`unverified_note`, `bad_signature`, …).
    @discardableResult
    func advance(toNote note: [UInt8]) async throws -> Checkpoint {
        let (relayID, verifier, known) = try await self.pinned()
        let checkpoint: Checkpoint
        do {
            checkpoint = try Checkpoint(verifyingNote: note, origin: verifier.name, verifiers: [verifier])
        } catch let error as WotsError where [.unverifiedNote, .badSignature, .wrongLogOrigin].contains(error.code) {
            if let current = try? await self.relay.identity(), current.relayID != Data(relayID).base64EncodedString() {
                throw WotsError(
                    .relayChanged,
                    "\(self.relay.baseURL) is not the relay whose log this machine checked before (its id changed); "
                        + "refusing it. Remove \(LocalStore.logViewFile) from the home folder only if the operator "
                        + "really replaced the relay"
                )
            }
            throw WotsError(
                error.code,
                "\(self.relay.baseURL) sent a checkpoint its pinned log key \(verifier.name) did not sign: \(error.reason)"
            )
        }
        if let known {
            try await self.checkExtends(known, with: checkpoint)
        }
        if known.map({ checkpoint.size > $0.size }) ?? true {
            var view = try self.store.logView()
            view.relays[self.relay.baseURL]?.checkpoint = String(decoding: note, as: UTF8.self)
            try self.store.save(view)
        }
        return checkpoint
    }

    private func checkExtends(_ old: Checkpoint, with new: Checkpoint) async throws {
        let relay = self.relay.baseURL
        guard new.size >= old.size else {
            throw WotsError(
                .logForked,
                "\(relay) rolled its log back from \(old.size) to \(new.size) leaves; refusing this relay"
            )
        }
        if new.size == old.size {
            guard new.rootHash == old.rootHash else {
                throw WotsError(
                    .logForked,
                    "\(relay) showed two different logs of \(new.size) leaves; refusing this relay"
                )
            }
            return
        }
        guard old.size > 0 else { return }
        let answer = try await self.relay.consistencyProof(from: old.size, to: new.size)
        do {
            let proof = ConsistencyProof(
                oldSize: old.size,
                newSize: new.size,
                hashes: try answer.hashes.map(MerkleHash.init(base64:))
            )
            try proof.verify(oldRoot: old.rootHash, newRoot: new.rootHash)
        } catch {
            throw WotsError(
                .logForked,
                "\(relay)'s log of \(new.size) leaves does not extend the one of \(old.size) it showed before (a fork); "
                    + "refusing this relay"
            )
        }
    }

    /// Checks a lookup against the log: a checkpoint extending the kept view, the leaf's inclusion in it, the leaf
    /// saying what the entry says, and the owner's signature on the leaf.
    /// - Throws: `invalid_proof` when the entry is not (or not so) in the log; `bad_signature` when its leaf is not
    ///   signed by its owner; `log_forked` as `advance(toNote:)`.
    func verify(_ lookup: DirectoryLookup) async throws -> Verified {
        let entry = lookup.entry
        let relay = self.relay.baseURL
        guard let log = lookup.log else {
            throw WotsError(.invalidProof, "\(relay) gave \"\(entry.nickname)\" without its transparency-log proof")
        }
        let checkpoint = try await self.advance(toNote: Array(log.checkpoint.utf8))
        guard let leaf = Data(base64Encoded: log.leaf).map(Array.init) else {
            throw WotsError(.invalidResponse, "\(relay) sent a log leaf that is not base64")
        }
        do {
            let proof = InclusionProof(
                leafIndex: log.leafIndex,
                treeSize: checkpoint.size,
                hashes: try log.proof.map(MerkleHash.init(base64:))
            )
            try proof.verify(leafHash: MerkleTree.leafHash(leaf), rootHash: checkpoint.rootHash)
        } catch {
            throw WotsError(
                .invalidProof,
                "\(relay)'s keys for \"\(entry.nickname)\" are not in its log (leaf \(log.leafIndex) is not proven "
                    + "in the checkpoint of \(checkpoint.size) leaves); refusing them"
            )
        }
        let event = try DirectoryLogEvent(leafBytes: leaf)
        guard event.token == entry.token, event.nickname == entry.nickname, event.publicKeys == entry.publicKeys,
            [.registered, .keysRotated].contains(event.kind)
        else {
            throw WotsError(
                .invalidProof,
                "\(relay)'s directory shows \"\(entry.nickname)\" with keys its log does not (leaf \(log.leafIndex)); "
                    + "refusing them"
            )
        }
        try await self.checkAttestation(event, at: log.leafIndex, in: checkpoint)
        return Verified(entry: entry, leafIndex: log.leafIndex, event: event, checkpoint: checkpoint)
    }

    /// The owner's signature on a leaf. A registration logged before the relay kept proofs carries none and passes:
    /// the log still shows it to everyone, and its owner's monitor checks it.
    func checkAttestation(_ event: DirectoryLogEvent, at index: UInt64, in checkpoint: Checkpoint) async throws {
        if event.kind == .registered, event.attestation.isEmpty { return }
        var previousKeys: PublicKeys?
        if event.kind == .keysRotated, let previous = event.previousLeafIndex {
            previousKeys = try await self.provenLeaf(at: previous, in: checkpoint).publicKeys
        }
        let (relayID, _, _) = try await self.pinned()
        try event.verifyAttestation(relayID: relayID, previousKeys: previousKeys)
    }

    /// Leaf `index`, fetched and proven included in `checkpoint`.
    func provenLeaf(at index: UInt64, in checkpoint: Checkpoint) async throws -> DirectoryLogEvent {
        let entries = try await self.relay.logEntries(start: index, end: index + 1)
        guard entries.start == index, entries.entries.count == 1,
            let leaf = Data(base64Encoded: entries.entries[0]).map(Array.init)
        else {
            throw WotsError(.invalidResponse, "\(self.relay.baseURL) did not send log leaf \(index)")
        }
        let answer = try await self.relay.inclusionProof(index: index, size: checkpoint.size)
        let proof = InclusionProof(
            leafIndex: index,
            treeSize: checkpoint.size,
            hashes: try answer.hashes.map(MerkleHash.init(base64:))
        )
        try proof.verify(leafHash: MerkleTree.leafHash(leaf), rootHash: checkpoint.rootHash)
        return try DirectoryLogEvent(leafBytes: leaf)
    }

    /// Warnings about an account's own entry: keys logged for `token` that are not `keys`, or another token logged
    /// for `nickname`; and anything that keeps the log from confirming the entry. Empty when all is well.
    func ownEntryWarnings(token: Token, nickname: Nickname, keys: PublicKeys) async -> [String] {
        var warnings: [String] = []
        do {
            let byToken = try await self.verify(try await self.relay.lookup(token: token))
            if byToken.entry.publicKeys != keys {
                warnings.append(
                    "the relay's log shows keys for your token that this machine did not make (leaf "
                        + "\(byToken.leafIndex)); someone may be reading messages sent to you"
                )
            }
            let byNickname = try await self.verify(try await self.relay.lookup(nickname: nickname))
            if byNickname.entry.token != token {
                warnings.append(
                    "the relay's log binds your nickname \"\(nickname)\" to another token "
                        + "(\(byNickname.entry.token), leaf \(byNickname.leafIndex))"
                )
            }
        } catch let error as WotsError {
            warnings.append("the relay's log does not confirm your own entry: \(error.reason)")
        } catch {
            warnings.append("the relay's log does not confirm your own entry: \(error)")
        }
        return warnings
    }
}
