import Foundation
import Synchronization
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@testable import WotsClient

/// Keys kept in memory, standing in for the session keyring; `unavailable` plays a keyring the kernel refuses.
final class MemoryUnlockCache: UnlockCache {
    private let kept = Mutex<[Token: SecretKeys]>([:])
    let unavailable: Bool

    init(unavailable: Bool = false) { self.unavailable = unavailable }

    func keys(for profile: Profile) throws -> SecretKeys? {
        try self.check()
        return self.kept.withLock { $0[profile.token] }
    }

    func keep(_ keys: SecretKeys, for profile: Profile, duration: Duration) throws {
        try self.check()
        self.kept.withLock { $0[profile.token] = keys }
    }

    func forget(_ profile: Profile) throws -> Bool {
        try self.check()
        return self.kept.withLock { $0.removeValue(forKey: profile.token) != nil }
    }

    private func check() throws {
        if self.unavailable { throw WotsError(.secretUnavailable, "the session keyring is unavailable (test)") }
    }
}

/// Answers prompts with a fixed secret and counts them; collects notices.
final class Asker: Sendable {
    let secret: String
    private let counts = Mutex((prompts: 0, notices: [String]()))

    init(secret: String) { self.secret = secret }

    var prompts: Int { self.counts.withLock { $0.prompts } }
    var notices: [String] { self.counts.withLock { $0.notices } }

    var source: SecretSource {
        .prompt { _ in
            self.counts.withLock { $0.prompts += 1 }
            return self.secret
        }
    }

    func notice(_ text: String) { self.counts.withLock { $0.notices.append(text) } }
}

@Suite struct UnlockTests {
    let alice = TestIdentities.alice

    func messenger(in folder: TemporaryFolder, secret: SecretSource, cache: MemoryUnlockCache, asker: Asker) throws
        -> Messenger
    {
        let store = LocalStore(home: folder.home)
        if !store.hasAccount {
            try store.create(
                LocalAccount(
                    profile: SessionKeyringTests.profile(alice, relay: "http://127.0.0.1:9"),
                    privateRecord: try alice.privateRecord()
                )
            )
        }
        return try Messenger(
            configuration: .init(
                relay: nil,
                home: folder.home,
                secret: secret,
                unlockCache: cache,
                notice: { asker.notice($0) }
            )
        )
    }

    @Test func afterUnlockingCommandsOpenTheKeysWithoutAsking() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = MemoryUnlockCache()
        let asker = Asker(secret: alice.secret)
        let messenger = try self.messenger(in: folder, secret: asker.source, cache: cache, asker: asker)
        _ = try messenger.unlockSession(for: .seconds(60))
        #expect(asker.prompts == 1)
        for _ in 0..<3 {
            let unlocked = try await messenger.unlock()
            #expect(unlocked.identity.fingerprint == alice.fingerprint)
        }
        #expect(asker.prompts == 1, "asked again although unlocked")
        #expect(try messenger.lockSession().wasUnlocked)
        _ = try await messenger.unlock()
        #expect(asker.prompts == 2, "not asked after lock")
    }

    @Test func unlockingWithAWrongSecretKeepsNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = MemoryUnlockCache()
        let asker = Asker(secret: "not alice's secret")
        let messenger = try self.messenger(in: folder, secret: asker.source, cache: cache, asker: asker)
        let error = #expect(throws: WotsError.self) { try messenger.unlockSession(for: .seconds(60)) }
        #expect(error?.code == .wrongSecret)
        #expect(try cache.keys(for: messenger.whoami()) == nil)
    }

    @Test func keptKeysThatNoLongerOpenTheAccountAreForgottenAndTheSecretAsked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = MemoryUnlockCache()
        let asker = Asker(secret: alice.secret)
        let messenger = try self.messenger(in: folder, secret: asker.source, cache: cache, asker: asker)
        let stale = SecretKeys(
            encryptionKey: Array(repeating: 3, count: 32),
            authenticationKey: Array(repeating: 4, count: 32)
        )
        try cache.keep(stale, for: try messenger.whoami(), duration: .seconds(60))
        let unlocked = try await messenger.unlock()
        #expect(unlocked.identity.fingerprint == alice.fingerprint)
        #expect(asker.prompts == 1)
        #expect(try cache.keys(for: messenger.whoami()) == nil)
        #expect(asker.notices.count == 1 && asker.notices[0].contains("no longer open"))
    }

    @Test func anExplicitSecretTakesPrecedenceOverKeptKeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = MemoryUnlockCache()
        let asker = Asker(secret: alice.secret)
        _ = try self.messenger(in: folder, secret: asker.source, cache: cache, asker: asker).unlockSession(
            for: .seconds(60)
        )
        let scripted = try self.messenger(in: folder, secret: .value("a wrong secret"), cache: cache, asker: asker)
        let error = await #expect(throws: WotsError.self) { try await scripted.unlock() }
        #expect(error?.code == .wrongSecret)
        #expect(try cache.keys(for: scripted.whoami()) != nil, "an explicit wrong secret must not drop kept keys")
    }

    @Test func anUnavailableKeyringMeansAskingEveryTimeWithOneNote() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let asker = Asker(secret: alice.secret)
        let messenger = try self.messenger(
            in: folder,
            secret: asker.source,
            cache: MemoryUnlockCache(unavailable: true),
            asker: asker
        )
        let error = #expect(throws: WotsError.self) { try messenger.unlockSession(for: .seconds(60)) }
        #expect(error?.code == .secretUnavailable)
        #expect(error?.reason.contains("cannot keep alice unlocked: the session keyring is unavailable") == true)
        #expect(asker.prompts == 0, "asked for a secret that could not be kept")
        _ = try await messenger.unlock()
        #expect(asker.prompts == 1)
        #expect(asker.notices.count == 1 && asker.notices[0].contains("asked by every command"))
        #expect(try messenger.lockSession().wasUnlocked == false)
    }
}
