import Foundation
import Testing
import WotsCore
import WotsStorage
import WotsTransparency

/// The transparency log: every directory change appends one leaf in the change's own transaction, and proofs read
/// from storage agree with the reference tree, on every backend.
extension StorageContractTests {
    private func events(in backend: StorageBackend) async throws -> [DirectoryLogEvent] {
        let size = try await backend.log.size()
        return try await backend.log.leaves(in: 0..<size).map(DirectoryLogEvent.init(leafBytes:))
    }

    @Test(arguments: StorageBackendKind.allCases)
    func everyDirectoryChangeAppendsOneLeafChainedToTheTokensPreviousLeaf(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice, attestation: [1, 2, 3])
            try await backend.privateRecords.create(TestValues.record(alice.token))
            let newKeys = TestValues.publicKeys()
            _ = try await backend.accounts.rotateKeys(
                token: alice.token,
                publicKeys: newKeys,
                fingerprint: TestValues.fingerprint(),
                record: TestValues.record(alice.token),
                attestation: [4, 5]
            )
            let bob = TestValues.entry("bob")
            try await backend.directory.create(bob)
            try await backend.accounts.deleteAccount(token: alice.token)

            let events = try await self.events(in: backend)
            #expect(events.map(\.kind) == [.registered, .keysRotated, .registered, .deleted])
            #expect(events.map(\.token) == [alice.token, alice.token, bob.token, alice.token])
            #expect(events.map(\.previousLeafIndex) == [nil, 0, nil, 1])
            #expect(events.map(\.attestation) == [[1, 2, 3], [4, 5], [], []])
            #expect(events[0].publicKeys == alice.publicKeys)
            #expect(events[1].publicKeys == newKeys)
            #expect(events[3].publicKeys == newKeys)
            #expect(events[0].timeMilliseconds == 1_700_000_000_123)
            #expect(try await backend.log.latestLeafIndex(of: alice.token) == 3)
            #expect(try await backend.log.latestLeafIndex(of: bob.token) == 2)
            #expect(try await backend.log.latestLeafIndex(of: TestValues.token()) == nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aRefusedOrFailedChangeAppendsNoLeaf(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            await expectStorageError(.nicknameTaken) { try await backend.directory.create(TestValues.entry("alice")) }
            await expectStorageError(.unknownToken) {
                try await backend.accounts.deleteAccount(token: TestValues.token())
            }
            #expect(try await backend.log.size() == 1)
            guard let failSessionDeletions = backend.failSessionDeletions else { return }
            let session = TestValues.randomBytes(32)
            try await backend.authentication.storeSession(
                hash: session,
                token: alice.token,
                expiresAt: TestValues.time(4_000_000_000_000)
            )
            try await failSessionDeletions()
            // The deletion fails at its last step: its leaf, written earlier in the transaction, goes with it.
            await #expect(throws: (any Error).self) { try await backend.accounts.deleteAccount(token: alice.token) }
            #expect(try await backend.log.size() == 1)
            #expect(try await backend.directory.entry(token: alice.token) != nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func anUndoneRegistrationIsLoggedAsWithdrawnAndFreesTheNickname(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            try await backend.directory.undoCreate(token: alice.token)
            try await backend.directory.undoCreate(token: alice.token)
            try await backend.directory.create(TestValues.entry("alice"))
            #expect(try await self.events(in: backend).map(\.kind) == [.registered, .withdrawn, .registered])
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func proofsFromStorageAgreeWithTheReferenceTreeAtEverySize(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            for number in 0..<11 {
                try await backend.directory.create(TestValues.entry("user\(number)"))
            }
            let leaves = try await backend.log.leaves(in: 0..<11)
            let reference = InMemoryMerkleLog(leafHashes: leaves.map(MerkleTree.leafHash))
            let head = try await backend.log.treeHead()
            #expect(head.size == 11)
            #expect(head.rootHash == reference.rootHash)
            for size in UInt64(1)...11 {
                let root = try await MerkleTree.rootHash(treeSize: size, reader: backend.log)
                for index in 0..<size {
                    let proof = try await MerkleTree.inclusionProof(
                        forLeafAt: index,
                        treeSize: size,
                        reader: backend.log
                    )
                    try proof.verify(leafHash: MerkleTree.leafHash(leaves[Int(index)]), rootHash: root)
                }
                let consistency = try await MerkleTree.consistencyProof(from: size, to: 11, reader: backend.log)
                try consistency.verify(oldRoot: root, newRoot: head.rootHash)
            }
            await expectStorageError(.proofOutOfRange) { _ = try await backend.log.leaves(in: 5..<12) }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func concurrentRegistrationsGetOneLeafEachInOneTree(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let entries = (0..<24).map { TestValues.entry("racer\($0)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for entry in entries {
                    group.addTask { try await backend.directory.create(entry) }
                }
                try await group.waitForAll()
            }
            let head = try await backend.log.treeHead()
            #expect(head.size == 24)
            let events = try await self.events(in: backend)
            #expect(Set(events.map(\.token)) == Set(entries.map(\.token)))
            let leaves = try await backend.log.leaves(in: 0..<24)
            #expect(InMemoryMerkleLog(leafHashes: leaves.map(MerkleTree.leafHash)).rootHash == head.rootHash)
        }
    }

    @Test(arguments: [StorageBackendKind.sqlite, .postgres])
    func entriesFromBeforeTheLogAreLoggedOnceOldestFirst(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let insert = try #require(backend.insertUnloggedEntry)
            var old = TestValues.entry("old")
            old.registeredAt = TestValues.time(1_600_000_000_000)
            let gone = TestValues.entry("gone")
            try await insert(gone, true)
            try await insert(old, false)
            #expect(try await backend.log.logUnloggedEntries(at: TestValues.time()) == 3)
            #expect(try await backend.log.logUnloggedEntries(at: TestValues.time()) == 0)
            try await backend.directory.create(TestValues.entry("new"))

            let events = try await self.events(in: backend)
            #expect(events.map(\.kind) == [.registered, .registered, .deleted, .registered])
            #expect(events.map(\.token).prefix(3) == [old.token, gone.token, gone.token])
            #expect(events[2].previousLeafIndex == 1)
            #expect(events[0].publicKeys == old.publicKeys)
            #expect(events[0].attestation.isEmpty)
        }
    }
}
