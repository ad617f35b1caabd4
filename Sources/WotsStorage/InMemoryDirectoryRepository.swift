import Foundation
import Synchronization
public import WotsCore
import WotsTransparency

/// A `DirectoryRepository` held in memory, for tests and throwaway relays. Honours the same contract as the
/// database backends: case-insensitive nicknames, tombstones, keyset pages of at most 100.
public final class InMemoryDirectoryRepository: DirectoryRepository {
    private struct State {
        var byToken: [Token: DirectoryEntry] = [:]
        var tokenByNickname: [Nickname: Token] = [:]
        /// Live nicknames in ascending order, so a page is a binary search and a slice.
        var sortedNicknames: [Nickname] = []
        var tombstonedTokens: Set<Token> = []
        var tombstonedNicknames: Set<Nickname> = []
        /// When each deleted account registered, for the operator's statistics.
        var tombstonedRegistrations: [Date] = []

        /// The index of the first nickname greater than `nickname` (or equal when `inclusive`).
        func index(after nickname: Nickname, inclusive: Bool = false) -> Int {
            var low = 0
            var high = self.sortedNicknames.count
            while low < high {
                let middle = (low + high) / 2
                let candidate = self.sortedNicknames[middle]
                if candidate < nickname || (!inclusive && candidate == nickname) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            return low
        }

        mutating func removeLive(token: Token) -> DirectoryEntry? {
            guard let entry = self.byToken.removeValue(forKey: token) else { return nil }
            self.tokenByNickname.removeValue(forKey: entry.nickname)
            let index = self.index(after: entry.nickname, inclusive: true)
            if index < self.sortedNicknames.count, self.sortedNicknames[index] == entry.nickname {
                self.sortedNicknames.remove(at: index)
            }
            return entry
        }
    }

    private let state = Mutex(State())
    /// The log of every change; appended to under this directory's lock, so both always agree.
    public let log: InMemoryTransparencyLog

    /// Creates an empty directory with an empty log.
    public init(log: InMemoryTransparencyLog = InMemoryTransparencyLog()) {
        self.log = log
    }

    public func create(_ entry: DirectoryEntry, attestation: [UInt8]) async throws {
        try self.state.withLock { state in
            if state.tokenByNickname[entry.nickname] != nil || state.tombstonedNicknames.contains(entry.nickname) {
                throw WotsError(.nicknameTaken, "nickname \"\(entry.nickname)\" is taken")
            }
            if state.byToken[entry.token] != nil || state.tombstonedTokens.contains(entry.token) {
                throw WotsError(.tokenTaken, "token \(entry.token) is registered already")
            }
            try self.log.append(DirectoryLogEvent(.registered, entry, at: entry.registeredAt, attestation: attestation))
            state.byToken[entry.token] = entry
            state.tokenByNickname[entry.nickname] = entry.token
            state.sortedNicknames.insert(entry.nickname, at: state.index(after: entry.nickname))
        }
    }

    public func undoCreate(token: Token) async throws {
        let now = Date()
        try self.state.withLock { state in
            guard let entry = state.byToken[token] else { return }
            try self.log.append(DirectoryLogEvent(.withdrawn, entry, at: now))
            _ = state.removeLive(token: token)
        }
    }

    public func entry(nickname: Nickname) async throws -> DirectoryEntry? {
        self.state.withLock { state in state.tokenByNickname[nickname].flatMap { state.byToken[$0] } }
    }

    public func entry(token: Token) async throws -> DirectoryEntry? {
        self.state.withLock { $0.byToken[token] }
    }

    public func page(limit: PageLimit, after cursor: Cursor?) async throws -> Page<DirectoryEntry> {
        self.state.withLock { state in
            let start = cursor.map { state.index(after: $0.lastNickname) } ?? 0
            let end = min(start + limit.value, state.sortedNicknames.count)
            let entries = state.sortedNicknames[start..<end].compactMap { nickname in
                state.tokenByNickname[nickname].flatMap { state.byToken[$0] }
            }
            let next = end < state.sortedNicknames.count ? entries.last.map { Cursor(after: $0.nickname) } : nil
            return Page(entries: entries, next: next)
        }
    }

    public func rotateKeys(
        token: Token,
        publicKeys: PublicKeys,
        fingerprint: Fingerprint,
        attestation: [UInt8]
    ) async throws -> DirectoryEntry {
        let now = Date()
        return try self.state.withLock { state in
            guard var entry = state.byToken[token] else {
                throw WotsError(.notFound, "token \(token) has no directory entry")
            }
            entry.publicKeys = publicKeys
            entry.fingerprint = fingerprint
            try self.log.append(DirectoryLogEvent(.keysRotated, entry, at: now, attestation: attestation))
            state.byToken[token] = entry
            return entry
        }
    }

    public func delete(token: Token) async throws {
        let now = Date()
        try self.state.withLock { state in
            guard let live = state.byToken[token] else {
                throw WotsError(.notFound, "token \(token) has no directory entry")
            }
            try self.log.append(DirectoryLogEvent(.deleted, live, at: now))
            guard let entry = state.removeLive(token: token) else { return }
            state.tombstonedTokens.insert(entry.token)
            state.tombstonedNicknames.insert(entry.nickname)
            state.tombstonedRegistrations.append(entry.registeredAt)
        }
    }

    public func count() async throws -> Int {
        self.state.withLock { $0.byToken.count }
    }

    /// When every account, live or deleted, registered.
    func registrationDates() -> [Date] {
        self.state.withLock { state in state.byToken.values.map(\.registeredAt) + state.tombstonedRegistrations }
    }
}
