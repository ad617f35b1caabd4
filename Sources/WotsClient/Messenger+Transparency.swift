import WotsCore
import WotsTransparency

extension Messenger {
    var auditor: LogAuditor { LogAuditor(relay: self.relay, store: self.store) }

    /// `nickname`'s entry, proven by the relay's transparency log (see `LogAuditor.verify`).
    /// - Throws: `unknown_nickname`; `invalid_response` for unusable keys; `invalid_proof`, `bad_signature` or
    ///   `log_forked` when the log does not back the entry.
    func verifiedEntry(nickname: Nickname) async throws -> DirectoryEntry {
        let lookup = try await self.relay.lookup(nickname: nickname)
        try Self.checkConsistent(lookup.entry, relay: self.relay.baseURL)
        return try await self.auditor.verify(lookup).entry
    }

    /// The entry of `token` (a group member), proven by the relay's transparency log.
    /// - Throws: `unknown_token`, and what `verifiedEntry(nickname:)` throws.
    func verifiedEntry(token: Token) async throws -> DirectoryEntry {
        let lookup = try await self.relay.lookup(token: token)
        try Self.checkConsistent(lookup.entry, relay: self.relay.baseURL)
        return try await self.auditor.verify(lookup).entry
    }

    /// What `wots directory verify` found.
    public struct LogAudit: Sendable, Hashable, Codable {
        /// The verified checkpoint's size and root hash (base64).
        public var treeSize: UInt64
        public var rootHash: String
        /// Leaves whose inclusion was checked: every one with `full`, else a sample.
        public var checkedLeaves: Int
        /// Directory entries compared with the log (only with `full`).
        public var directoryEntries: Int
        public var full: Bool
    }

    /// Checks the relay's log: its checkpoint extends the one kept here; with `full`, every leaf is fetched, hashed
    /// into the signed root, replayed (chains and owner signatures) and the directory compared with the replay;
    /// without, `sample` random leaves are proven included.
    /// - Throws: `log_forked`, `invalid_proof` or `bad_signature` naming the first thing that does not hold.
    public func auditLog(full: Bool, sample: Int = 16, progress: @Sendable (Int) -> Void = { _ in }) async throws
        -> LogAudit
    {
        let auditor = self.auditor
        let checkpoint = try await auditor.advance(toNote: try await self.relay.checkpointNote())
        var audit = LogAudit(
            treeSize: checkpoint.size,
            rootHash: checkpoint.rootHash.base64,
            checkedLeaves: 0,
            directoryEntries: 0,
            full: full
        )
        guard full else {
            let indices = Set(
                (0..<min(sample, Int(checkpoint.size))).map { _ in UInt64.random(in: 0..<checkpoint.size) }
            )
            for index in indices.sorted() {
                _ = try await auditor.provenLeaf(at: index, in: checkpoint)
            }
            audit.checkedLeaves = indices.count
            return audit
        }
        let replay = try await LogReplay.fetch(checkpoint, from: self.relay, auditor: auditor, progress: progress)
        audit.checkedLeaves = Int(checkpoint.size)
        let directory = try await self.directory()
        try replay.check(directory: directory, relay: self.relay.baseURL)
        audit.directoryEntries = directory.count
        return audit
    }

    /// Warnings about this account's own entry in the relay's log: keys for its token, or a token for its
    /// nickname, that this machine did not make. Empty when the log shows what this account registered.
    public func ownEntryWarnings() async -> [String] {
        guard let profile = try? self.store.account().profile else { return [] }
        return await self.auditor.ownEntryWarnings(
            token: profile.token,
            nickname: profile.nickname,
            keys: profile.publicKeys
        )
    }
}
