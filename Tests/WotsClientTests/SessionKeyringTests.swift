import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

@testable import WotsClient

/// The real kernel session keyring. Skipped where the kernel refuses keyring calls (Docker's default seccomp
/// profile); `wots unlock` then says the keyring is unavailable, which the end-to-end test checks.
@Suite(.enabled(if: SessionKeyring.isAvailable, "the session keyring is unavailable here"))
struct SessionKeyringTests {
    let keyring = SessionKeyring()

    /// A description no other test (or test run) uses.
    func fresh() -> String { "wots:test:\(UUID().uuidString)" }

    @Test func aStoredPayloadReadsBackUntilRemoved() throws {
        let description = self.fresh()
        #expect(try self.keyring.read(description) == nil)
        try self.keyring.store([1, 2, 3], description: description, timeout: .seconds(60))
        #expect(try self.keyring.read(description) == [1, 2, 3])
        #expect(try self.keyring.remove(description))
        #expect(try self.keyring.read(description) == nil)
        #expect(try !self.keyring.remove(description))
    }

    @Test func storingAgainReplacesThePayload() throws {
        let description = self.fresh()
        defer { _ = try? self.keyring.remove(description) }
        try self.keyring.store([1], description: description, timeout: .seconds(60))
        try self.keyring.store([2, 2], description: description, timeout: .seconds(60))
        #expect(try self.keyring.read(description) == [2, 2])
    }

    @Test func aKeyIsGoneOnceItsTimeoutHasPassed() async throws {
        let description = self.fresh()
        defer { _ = try? self.keyring.remove(description) }
        let stored = ContinuousClock.now
        try self.keyring.store([7], description: description, timeout: .seconds(2))
        #expect(try self.keyring.read(description) == [7])
        // The kernel counts expiry in whole seconds of wall-clock time, so a 2 s timeout ends after 1 to 2 s: poll,
        // with a bound, rather than sleep a guessed time.
        while try self.keyring.read(description) != nil {
            try #require(ContinuousClock.now - stored < .seconds(6), "still readable 6 s after a 2 s timeout")
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(ContinuousClock.now - stored >= .seconds(1), "gone well before its timeout")
    }

    @Test func keysAreReadableByTheirPossessorOnly() throws {
        let description = self.fresh()
        defer { _ = try? self.keyring.remove(description) }
        try self.keyring.store([9], description: description, timeout: .seconds(60))
        // /proc/keys: serial, flags, usage, expiry, permissions, uid, gid, type, description.
        let keys = try String(contentsOfFile: "/proc/keys", encoding: .utf8)
        let line = try #require(keys.split(separator: "\n").first { $0.contains(description) })
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields[4] == "3f000000", "\(line)")
        #expect(fields[3] != "perm", "no timeout set: \(line)")
    }

    @Test func twoAccountsNeverShareAnEntry() throws {
        // Relays no other test run uses: the keyring may be shared with every process of this user.
        let relay = "http://\(UUID().uuidString.lowercased()).invalid"
        let alice = Self.profile(TestIdentities.alice, relay: relay)
        let bob = Self.profile(TestIdentities.bob, relay: relay)
        let aliceElsewhere = Self.profile(TestIdentities.alice, relay: relay + ":2")
        let keys = SecretKeys(
            encryptionKey: Array(repeating: 1, count: 32),
            authenticationKey: Array(repeating: 2, count: 32)
        )
        try self.keyring.keep(keys, for: alice, duration: .seconds(60))
        defer { _ = try? self.keyring.forget(alice) }
        #expect(try self.keyring.keys(for: alice)?.encryptionKey == keys.encryptionKey)
        #expect(try self.keyring.keys(for: alice)?.authenticationKey == keys.authenticationKey)
        #expect(try self.keyring.keys(for: bob) == nil)
        #expect(try self.keyring.keys(for: aliceElsewhere) == nil)
        #expect(try self.keyring.forget(alice))
        #expect(try self.keyring.keys(for: alice) == nil)
    }

    static func profile(_ identity: TestIdentity, relay: String) -> Profile {
        Profile(
            token: identity.token,
            nickname: identity.nickname,
            relay: relay,
            publicKeys: identity.publicKeys,
            fingerprint: identity.fingerprint,
            registeredAt: Date()
        )
    }
}
