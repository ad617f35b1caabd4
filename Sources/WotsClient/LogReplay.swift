import Foundation
import WotsCore
import WotsTransparency

/// A whole log fetched, hashed into a verified checkpoint's root and replayed: each token's newest event, every
/// chain link and every owner signature checked.
struct LogReplay: Sendable {
    /// Each token's newest event.
    var newest: [Token: DirectoryLogEvent] = [:]

    static func fetch(
        _ checkpoint: Checkpoint,
        from relay: any LogSource,
        auditor: LogAuditor,
        progress: @Sendable (Int) -> Void
    ) async throws -> LogReplay {
        var tree = InMemoryMerkleLog()
        var replay = LogReplay()
        var newestIndex: [Token: UInt64] = [:]
        let relayID = try await auditor.pinned().relayID
        var start: UInt64 = 0
        while start < checkpoint.size {
            let end = min(checkpoint.size, start + 100)
            let page = try await relay.logEntries(start: start, end: end)
            guard page.start == start, page.entries.count == Int(end - start) else {
                throw WotsError(
                    .invalidResponse,
                    "\(relay.baseURL) sent another range of log leaves than \(start)..<\(end)"
                )
            }
            for (offset, text) in page.entries.enumerated() {
                let index = start + UInt64(offset)
                guard let leaf = Data(base64Encoded: text).map(Array.init) else {
                    throw WotsError(.invalidResponse, "\(relay.baseURL) sent log leaf \(index) not in base64")
                }
                tree.append(leafHash: MerkleTree.leafHash(leaf))
                let event = try DirectoryLogEvent(leafBytes: leaf)
                guard event.previousLeafIndex == newestIndex[event.token] else {
                    throw WotsError(.invalidProof, "log leaf \(index) does not follow its token's previous leaf")
                }
                try replay.apply(event, at: index, relayID: relayID)
                newestIndex[event.token] = index
            }
            start = end
            progress(Int(start))
        }
        guard tree.rootHash == checkpoint.rootHash else {
            throw WotsError(
                .invalidProof,
                "\(relay.baseURL)'s \(checkpoint.size) log leaves do not hash to its signed checkpoint"
            )
        }
        return replay
    }

    private mutating func apply(_ event: DirectoryLogEvent, at index: UInt64, relayID: [UInt8]) throws {
        let previous = self.newest[event.token]
        switch event.kind {
        case .registered:
            guard previous == nil || previous?.kind == .withdrawn else {
                throw WotsError(.invalidProof, "log leaf \(index) registers a token that is registered already")
            }
            if !event.attestation.isEmpty { try event.verifyAttestation(relayID: relayID, previousKeys: nil) }
        case .keysRotated, .deleted, .withdrawn:
            guard let previous, [.registered, .keysRotated].contains(previous.kind) else {
                throw WotsError(.invalidProof, "log leaf \(index) changes a token that is not registered")
            }
            try event.verifyAttestation(relayID: relayID, previousKeys: previous.publicKeys)
        }
        self.newest[event.token] = event
    }

    /// Every live directory entry is its token's newest event, and every live token in the log is in the directory.
    func check(directory: [DirectoryEntry], relay: String) throws {
        for entry in directory {
            guard let event = self.newest[entry.token], [.registered, .keysRotated].contains(event.kind),
                event.nickname == entry.nickname, event.publicKeys == entry.publicKeys
            else {
                throw WotsError(.invalidProof, "\(relay)'s directory shows \"\(entry.nickname)\" as its log does not")
            }
        }
        let live = self.newest.values.filter { [.registered, .keysRotated].contains($0.kind) }.count
        guard live == directory.count else {
            throw WotsError(
                .invalidProof,
                "\(relay)'s log holds \(live) live accounts but its directory lists \(directory.count)"
            )
        }
    }
}
