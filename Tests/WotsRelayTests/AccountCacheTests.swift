import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTesting

@testable import WotsRelay

@Suite struct AccountCacheTests {
    let alice = TestIdentities.alice
    let carol = TestIdentities.carol

    func entry(of user: TestIdentity, keys: IdentityKeys? = nil) -> DirectoryEntry {
        let keys = keys ?? user.identity
        return DirectoryEntry(
            token: user.token,
            nickname: user.nickname,
            publicKeys: keys.publicKeys,
            fingerprint: keys.fingerprint,
            registeredAt: Date(timeIntervalSince1970: 1_800_000_000)
        )
    }

    @Test func aValueChangedBehindTheCacheIsSeenOnceItsLifetimeEnds() async throws {
        let storage = RelayStorage.inMemory()
        let cache = AccountCache(storage: storage, bus: EventBus(), lifetime: .milliseconds(200))
        try await storage.directory.create(self.entry(of: alice))
        #expect(try await cache.entry(token: alice.token)?.fingerprint == alice.fingerprint)

        _ = try await storage.directory.rotateKeys(
            token: alice.token,
            publicKeys: carol.publicKeys,
            fingerprint: carol.fingerprint
        )
        #expect(try await cache.entry(token: alice.token)?.fingerprint == alice.fingerprint, "served from memory")
        try await Task.sleep(for: .milliseconds(250))
        #expect(try await cache.entry(token: alice.token)?.fingerprint == carol.fingerprint)
    }

    @Test func forgettingAnAccountDropsItsEntryAndEverySessionAtOnce() async throws {
        let storage = RelayStorage.inMemory()
        let cache = AccountCache(storage: storage, bus: EventBus(), lifetime: .seconds(3600))
        let now = Date()
        try await storage.directory.create(self.entry(of: alice))
        try await storage.authentication.storeSession(hash: [1], token: alice.token, expiresAt: now + 3600)
        #expect(try await cache.session(hash: [1], now: now)?.token == alice.token)
        #expect(try await cache.entry(token: alice.token) != nil)

        try await storage.directory.delete(token: alice.token)
        try await storage.authentication.deleteSessions(of: alice.token)
        cache.forget(alice.token)

        #expect(try await cache.session(hash: [1], now: now) == nil)
        #expect(try await cache.entry(token: alice.token) == nil)
    }

    @Test func aCachedSessionIsNeverUsedPastItsOwnExpiry() async throws {
        let storage = RelayStorage.inMemory()
        let cache = AccountCache(storage: storage, bus: EventBus(), lifetime: .seconds(3600))
        let now = Date()
        try await storage.authentication.storeSession(hash: [2], token: alice.token, expiresAt: now + 60)
        #expect(try await cache.session(hash: [2], now: now) != nil)
        #expect(try await cache.session(hash: [2], now: now + 61) == nil)
    }

    @Test func anUnknownTokenIsLookedUpAgainOnceItRegisters() async throws {
        let storage = RelayStorage.inMemory()
        let cache = AccountCache(storage: storage, bus: EventBus(), lifetime: .seconds(3600))
        #expect(try await cache.entry(token: alice.token) == nil)
        try await storage.directory.create(self.entry(of: alice))
        #expect(try await cache.entry(token: alice.token) != nil)
    }

    @Test func anotherProcessAnnouncingAChangeOnTheBusEmptiesTheCache() async throws {
        let storage = RelayStorage.inMemory()
        let bus = EventBus()
        let cache = AccountCache(storage: storage, bus: bus, lifetime: .seconds(3600))
        try await storage.directory.create(self.entry(of: alice))
        #expect(try await cache.entry(token: alice.token)?.fingerprint == alice.fingerprint)
        _ = try await storage.directory.rotateKeys(
            token: alice.token,
            publicKeys: carol.publicKeys,
            fingerprint: carol.fingerprint
        )
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await cache.run() }
            while bus.subscriberCount(for: AccountChanged.self) == 0 { await Task.yield() }
            bus.publish(AccountChanged(token: alice.token, isFromAnotherProcess: true))
            let deadline = ContinuousClock.now + .seconds(30)
            while try await cache.entry(token: alice.token)?.fingerprint != carol.fingerprint,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await cache.entry(token: alice.token)?.fingerprint == carol.fingerprint)
            group.cancelAll()
        }
    }
}
