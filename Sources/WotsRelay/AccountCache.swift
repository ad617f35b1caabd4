import Foundation
import ServiceLifecycle
import Synchronization
import WotsCore
import WotsStorage

/// What every send and every authenticated request needs about an account (its session, its directory entry) kept
/// in memory, so the hot path reads no database.
///
/// Correctness: a cached value is dropped the moment this process changes the account (`forget`), when the bus
/// says another process did (`AccountChanged`, forwarded between relays on PostgreSQL), and in any case after
/// `lifetime`, which bounds how stale an entry can get should a cross-process notification be lost. A session is
/// never used past its own expiry. Only positive answers are kept: a token that is not registered yet is looked up
/// again next time.
final class AccountCache: Service, Sendable {
    /// Past this many values the cache starts over, so memory stays bounded whatever the traffic.
    static let maximumCount = 100_000

    private struct Cached<Value: Sendable>: Sendable {
        var value: Value
        var validUntil: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var sessions: [[UInt8]: Cached<ActiveSession>] = [:]
        var entries: [Token: Cached<DirectoryEntry>] = [:]
        /// Bumped by every `forget`: a value read from the database before a forget must not be cached after it.
        var generation: UInt64 = 0
    }

    private let storage: RelayStorage
    private let bus: EventBus
    private let lifetime: Duration
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    init(storage: RelayStorage, bus: EventBus, lifetime: Duration) {
        self.storage = storage
        self.bus = bus
        self.lifetime = lifetime
    }

    /// The live session with this secret hash, from memory when possible.
    func session(hash: [UInt8], now: Date = Date()) async throws -> ActiveSession? {
        let (cached, generation) = self.state.withLock { state in
            (state.sessions[hash].flatMap { self.isFresh($0) ? $0.value : nil }, state.generation)
        }
        if let cached {
            return cached.expiresAt > now ? cached : nil
        }
        guard let session = try await self.storage.authentication.session(hash: hash, now: now) else { return nil }
        self.state.withLock { state in
            guard state.generation == generation else { return }
            if state.sessions.count >= Self.maximumCount { state.sessions.removeAll(keepingCapacity: true) }
            state.sessions[hash] = Cached(value: session, validUntil: self.clock.now.advanced(by: self.lifetime))
        }
        return session
    }

    /// The live session with this secret hash when memory holds a fresh one; nil says nothing about the session, only
    /// that `session(hash:now:)` would have to read the database (or would refuse it).
    func cachedSession(hash: [UInt8], now: Date = Date()) -> ActiveSession? {
        let cached = self.state.withLock { state in state.sessions[hash].flatMap { self.isFresh($0) ? $0.value : nil } }
        guard let cached, cached.expiresAt > now else { return nil }
        return cached
    }

    /// The live directory entry of `token`, from memory when possible.
    func entry(token: Token) async throws -> DirectoryEntry? {
        let (cached, generation) = self.state.withLock { state in
            (state.entries[token].flatMap { self.isFresh($0) ? $0.value : nil }, state.generation)
        }
        if let cached { return cached }
        return try await self.load(token: token, generation: generation)
    }

    /// The directory entry of `token` when memory holds a fresh one; nil says nothing about the account, only that
    /// `entry(token:)` would have to read the database.
    func cachedEntry(token: Token) -> DirectoryEntry? {
        self.state.withLock { state in state.entries[token].flatMap { self.isFresh($0) ? $0.value : nil } }
    }

    private func load(token: Token, generation: UInt64) async throws -> DirectoryEntry? {
        guard let entry = try await self.storage.directory.entry(token: token) else { return nil }
        self.state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= Self.maximumCount { state.entries.removeAll(keepingCapacity: true) }
            state.entries[token] = Cached(value: entry, validUntil: self.clock.now.advanced(by: self.lifetime))
        }
        return entry
    }

    /// Drops what is kept about `token` (nil: about everyone).
    func forget(_ token: Token?) {
        self.state.withLock { state in
            state.generation &+= 1
            guard let token else {
                state.sessions.removeAll()
                state.entries.removeAll()
                return
            }
            state.entries[token] = nil
            state.sessions = state.sessions.filter { $0.value.value.token != token }
        }
    }

    /// Drops what is kept about `token` here and tells every other holder, in this process and (through the bus
    /// bridge on PostgreSQL) in the other relay processes.
    func accountChanged(_ token: Token) {
        self.forget(token)
        self.bus.publish(AccountChanged(token: token))
    }

    /// Follows `AccountChanged` and failed registrations on the bus until shutdown.
    func run() async throws {
        let changes = self.bus.subscribe(to: AccountChanged.self, bufferSize: 65_536)
        let failures = self.bus.subscribe(to: RegistrationFailed.self, bufferSize: 1_024)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await change in changes.cancelOnGracefulShutdown() {
                        self.forget(change.token)
                    }
                }
                group.addTask {
                    for await failure in failures.cancelOnGracefulShutdown() { self.forget(failure.token) }
                }
            }
        } onGracefulShutdown: {
        }
    }

    private func isFresh<Value>(_ cached: Cached<Value>) -> Bool {
        cached.validUntil > self.clock.now
    }
}
