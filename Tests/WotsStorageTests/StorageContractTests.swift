import Foundation
import Testing
import WotsCore
import WotsStorage

/// The repository contract, run against every backend. Each test gets fresh, empty repositories.
/// The directory tests are here; the others are in `StorageContractTests+*.swift`.
@Suite("Repository contract")
struct StorageContractTests {
    @Test(arguments: StorageBackendKind.allCases)
    func createdEntryIsFoundByNicknameInAnyCaseAndByToken(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)

            expectSame(try await backend.directory.entry(nickname: try Nickname("ALICE")), alice)
            expectSame(try await backend.directory.entry(nickname: try Nickname("alice")), alice)
            expectSame(try await backend.directory.entry(token: alice.token), alice)
            #expect(try await backend.directory.entry(nickname: try Nickname("bob")) == nil)
            #expect(try await backend.directory.entry(token: TestValues.token()) == nil)
            #expect(try await backend.directory.count() == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func nicknameTakenInAnotherCaseIsRefused(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            try await backend.directory.create(TestValues.entry("alice"))
            await expectStorageError(.nicknameTaken) {
                try await backend.directory.create(TestValues.entry("AlIcE"))
            }
            #expect(try await backend.directory.count() == 1)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func tokenAlreadyRegisteredIsRefused(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            await expectStorageError(.tokenTaken) {
                try await backend.directory.create(TestValues.entry("bob", token: alice.token))
            }
            #expect(try await backend.directory.entry(nickname: try Nickname("bob")) == nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func deletedNicknameAndTokenCanNeverBeRegisteredAgain(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            try await backend.directory.create(TestValues.entry("bob"))
            try await backend.directory.delete(token: alice.token)

            #expect(try await backend.directory.entry(token: alice.token) == nil)
            #expect(try await backend.directory.entry(nickname: alice.nickname) == nil)
            #expect(try await backend.directory.count() == 1)
            let page = try await backend.directory.page(limit: .max, after: nil)
            #expect(page.entries.map(\.nickname.value) == ["bob"])

            await expectStorageError(.nicknameTaken) {
                try await backend.directory.create(TestValues.entry("Alice"))
            }
            await expectStorageError(.tokenTaken) {
                try await backend.directory.create(TestValues.entry("carol", token: alice.token))
            }
            await expectStorageError(.notFound) {
                try await backend.directory.delete(token: alice.token)
            }
            await expectStorageError(.notFound) {
                try await backend.directory.delete(token: TestValues.token())
            }
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func undoCreateLeavesNoTombstone(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            try await backend.directory.undoCreate(token: alice.token)
            #expect(try await backend.directory.entry(token: alice.token) == nil)
            #expect(try await backend.directory.count() == 0)

            try await backend.directory.create(alice)
            expectSame(try await backend.directory.entry(nickname: alice.nickname), alice)
            // Nothing to undo is not an error.
            try await backend.directory.undoCreate(token: TestValues.token())
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func pagingTwoHundredFiftyEntriesByHundredGivesHundredHundredFiftyInNicknameOrder(
        kind: StorageBackendKind
    ) async throws {
        try await withBackend(kind) { backend in
            // Digits, `_`, `.` and `-` sort before letters; shuffled so insertion order cannot pass for nickname order.
            let nicknames = (0..<250).map { String(format: "user%03d", $0) }
                .enumerated().map { index, name in index % 7 == 0 ? name + "_x" : name }
            for nickname in nicknames.shuffled() {
                try await backend.directory.create(TestValues.entry(nickname))
            }

            var cursor: Cursor?
            var sizes: [Int] = []
            var seen: [String] = []
            repeat {
                let page = try await backend.directory.page(limit: try PageLimit(100), after: cursor)
                sizes.append(page.entries.count)
                seen += page.entries.map(\.nickname.value)
                cursor = page.next
            } while cursor != nil && sizes.count < 10

            #expect(sizes == [100, 100, 50])
            #expect(seen == nicknames.sorted())
            #expect(try await backend.directory.count() == 250)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func theLastPageOfAnExactMultipleHasNoNextCursor(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            for nickname in ["amy", "ben", "cat", "dan"] {
                try await backend.directory.create(TestValues.entry(nickname))
            }
            let first = try await backend.directory.page(limit: try PageLimit(2), after: nil)
            #expect(first.entries.map(\.nickname.value) == ["amy", "ben"])
            let next = try #require(first.next)
            let second = try await backend.directory.page(limit: try PageLimit(2), after: next)
            #expect(second.entries.map(\.nickname.value) == ["cat", "dan"])
            #expect(second.next == nil)

            let empty = try await backend.directory.page(limit: .max, after: Cursor(after: try Nickname("zzz")))
            #expect(empty.entries.isEmpty)
            #expect(empty.next == nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func pageLimitsOutsideOneToHundredAreRefusedNamingTheRange(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            for limit in [0, 101, -1] {
                let error = await expectStorageError(.invalidArgument) {
                    _ = try await backend.directory.page(limit: limit, after: nil)
                }
                #expect(error?.reason.contains("1–100") == true)
            }
            _ = try await backend.directory.page(limit: 1, after: nil)
            _ = try await backend.directory.page(limit: 100, after: nil)
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func aBadCursorIsRefusedAndACursorBetweenNicknamesResumesAfterIt(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            #expect(throws: WotsError(.invalidCursor, "")) { try Cursor("not-a-cursor!") }
            #expect(throws: WotsError(.invalidCursor, "")) { try Cursor("") }

            for nickname in ["alice", "bob", "carol"] {
                try await backend.directory.create(TestValues.entry(nickname))
            }
            // A cursor is just "after this nickname": one that is not (or no longer) registered still works.
            let cursor = try Cursor(Cursor(after: try Nickname("bob0")).description)
            let page = try await backend.directory.page(limit: .max, after: cursor)
            #expect(page.entries.map(\.nickname.value) == ["carol"])
        }
    }

    @Test(arguments: StorageBackendKind.allCases)
    func rotatingKeysReplacesKeysAndFingerprintOnly(kind: StorageBackendKind) async throws {
        try await withBackend(kind) { backend in
            let alice = TestValues.entry("alice")
            try await backend.directory.create(alice)
            var rotated = alice
            rotated.publicKeys = TestValues.publicKeys()
            rotated.fingerprint = TestValues.fingerprint()

            let returned = try await backend.directory.rotateKeys(
                token: alice.token,
                publicKeys: rotated.publicKeys,
                fingerprint: rotated.fingerprint
            )
            expectSame(returned, rotated)
            expectSame(try await backend.directory.entry(token: alice.token), rotated)

            await expectStorageError(.notFound) {
                _ = try await backend.directory.rotateKeys(
                    token: TestValues.token(),
                    publicKeys: rotated.publicKeys,
                    fingerprint: rotated.fingerprint
                )
            }
            try await backend.directory.delete(token: alice.token)
            await expectStorageError(.notFound) {
                _ = try await backend.directory.rotateKeys(
                    token: alice.token,
                    publicKeys: rotated.publicKeys,
                    fingerprint: rotated.fingerprint
                )
            }
        }
    }
}
