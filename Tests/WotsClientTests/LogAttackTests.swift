import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting
import WotsTransparency

@testable import WotsClient

/// A relay that lies about keys: the client checks every lookup against the relay's own signed log and refuses
/// what the log does not prove, a log that stops extending what it showed before, and warns about its own entry.
@Suite struct LogAttackTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    func withAuditor(_ body: (ScriptedRelayLog, LogAuditor, LocalStore) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        let relay = ScriptedRelayLog(key: try ScriptedRelayLog.makeKey())
        try await body(relay, LogAuditor(relay: relay, store: store), store)
    }

    @Test func anEntryTheLogProvesIsAcceptedAndItsCheckpointKept() async throws {
        try await self.withAuditor { relay, auditor, store in
            try relay.register(self.alice)
            try relay.register(self.bob)
            let verified = try await auditor.verify(try await relay.lookup(nickname: self.bob.nickname))
            #expect(verified.entry.publicKeys == self.bob.publicKeys)
            #expect(verified.leafIndex == 1)
            try relay.register(self.mallory)
            _ = try await auditor.verify(try await relay.lookup(nickname: self.alice.nickname))
            let kept = try #require(try store.logView().relays[relay.baseURL]?.checkpoint)
            #expect(try SignedNote(parsing: kept).text.hasPrefix(relay.key.name + "\n3\n"))
        }
    }

    @Test func aSubstitutedKeyTheLogDoesNotHoldIsRefused() async throws {
        try await self.withAuditor { relay, auditor, _ in
            try relay.register(self.bob)
            var forged = self.bob.entry()
            forged.publicKeys = self.mallory.publicKeys
            forged.fingerprint = self.mallory.fingerprint
            relay.show(forged)
            let error = await #expect(throws: WotsError.self) {
                _ = try await auditor.verify(try await relay.lookup(nickname: self.bob.nickname))
            }
            #expect(error?.code == .invalidProof)
            #expect(error?.reason.contains("keys its log does not") == true)
        }
    }

    @Test func aLoggedRotationToAnotherKeyNotSignedByTheOwnerIsRefused() async throws {
        try await self.withAuditor { relay, auditor, _ in
            try relay.register(self.bob)
            // Mallory signs both halves herself: she holds no key of bob's.
            let forged = try RotationProof.sign(
                token: self.bob.token,
                oldIdentity: self.mallory.identity,
                newIdentity: self.mallory.identity
            )
            relay.append(
                .keysRotated,
                self.bob,
                keys: self.mallory.publicKeys,
                attestation: DirectoryLogEvent.rotationAttestation(
                    oldKeySignature: forged.oldKeySignature,
                    newKeySignature: forged.newKeySignature
                )
            )
            let error = await #expect(throws: WotsError.self) {
                _ = try await auditor.verify(try await relay.lookup(nickname: self.bob.nickname))
            }
            #expect(error?.code == .badSignature)
        }
    }

    @Test func aLogThatForksFromTheOneShownBeforeIsRefused() async throws {
        try await self.withAuditor { relay, auditor, store in
            try relay.register(self.alice)
            try relay.register(self.bob)
            _ = try await auditor.verify(try await relay.lookup(nickname: self.bob.nickname))
            // The same relay (same id, same log key) shows this client another history: mallory where bob was.
            let fork = ScriptedRelayLog(key: relay.key)
            try fork.register(self.alice)
            try fork.register(self.mallory)
            try fork.register(self.bob)
            let forked = LogAuditor(relay: fork, store: store)
            let error = await #expect(throws: WotsError.self) {
                _ = try await forked.verify(try await fork.lookup(nickname: self.alice.nickname))
            }
            #expect(error?.code == .logForked)
            let sameSize = ScriptedRelayLog(key: relay.key)
            try sameSize.register(self.alice)
            try sameSize.register(self.mallory)
            let error2 = await #expect(throws: WotsError.self) {
                try await LogAuditor(relay: sameSize, store: store).advance(toNote: try await sameSize.checkpointNote())
            }
            #expect(error2?.code == .logForked)
        }
    }

    @Test func aRolledBackCheckpointIsRefused() async throws {
        try await self.withAuditor { relay, auditor, _ in
            try relay.register(self.alice)
            try relay.register(self.bob)
            try relay.register(self.mallory)
            try await auditor.advance(toNote: try await relay.checkpointNote())
            relay.serve(size: 2)
            let error = await #expect(throws: WotsError.self) {
                _ = try await auditor.verify(try await relay.lookup(nickname: self.alice.nickname))
            }
            #expect(error?.code == .logForked)
            #expect(error?.reason.contains("rolled its log back from 3 to 2") == true)
        }
    }

    @Test func aCheckpointNotSignedByThePinnedLogKeyIsRefused() async throws {
        try await self.withAuditor { relay, auditor, store in
            try relay.register(self.alice)
            try await auditor.advance(toNote: try await relay.checkpointNote())
            let impostor = ScriptedRelayLog(key: try ScriptedRelayLog.makeKey())
            try impostor.register(self.alice)
            let error = await #expect(throws: WotsError.self) {
                try await LogAuditor(relay: impostor, store: store).advance(toNote: try await impostor.checkpointNote())
            }
            #expect(error?.code == .unverifiedNote)
            let replaced = ScriptedRelayLog(
                relayID: Array(repeating: 9, count: 16),
                key: try ScriptedRelayLog.makeKey()
            )
            try replaced.register(self.alice)
            let error2 = await #expect(throws: WotsError.self) {
                try await LogAuditor(relay: replaced, store: store).advance(toNote: try await replaced.checkpointNote())
            }
            #expect(error2?.code == .relayChanged)
        }
    }

    @Test func theMonitorWarnsAboutKeysForOurTokenThatWeDidNotMake() async throws {
        try await self.withAuditor { relay, auditor, _ in
            try relay.register(self.alice)
            #expect(
                await auditor.ownEntryWarnings(
                    token: self.alice.token,
                    nickname: self.alice.nickname,
                    keys: self.alice.publicKeys
                ).isEmpty
            )
            // The relay logs mallory's keys under alice's token, as if restored from before the log (no signature).
            relay.append(.keysRotated, self.alice, keys: self.mallory.publicKeys, attestation: [])
            let warnings = await auditor.ownEntryWarnings(
                token: self.alice.token,
                nickname: self.alice.nickname,
                keys: self.alice.publicKeys
            )
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("log does not confirm your own entry") == true)
        }
    }

    @Test func theMonitorWarnsWhenTheLogShowsAnotherRegistrationOfOurToken() async throws {
        try await self.withAuditor { relay, auditor, _ in
            try relay.register(self.alice)
            relay.append(.deleted, self.alice, attestation: [])
            // An unattested registration (as for entries logged before the relay kept proofs) with mallory's keys.
            relay.append(.registered, self.alice, keys: self.mallory.publicKeys, attestation: [])
            let warnings = await auditor.ownEntryWarnings(
                token: self.alice.token,
                nickname: self.alice.nickname,
                keys: self.alice.publicKeys
            )
            #expect(warnings.first?.contains("keys for your token that this machine did not make") == true)
        }
    }
}
