import Foundation
import Testing
import WotsClient
import WotsCore
import WotsTesting

@Suite struct ContactBookTests {
    let bob = TestIdentities.bob
    let mallory = TestIdentities.mallory

    /// Bob's directory entry after his keys were replaced by Mallory's (a rotation, or a lying relay).
    var bobWithOtherKeys: DirectoryEntry {
        var entry = bob.entry()
        entry.publicKeys = mallory.publicKeys
        entry.fingerprint = mallory.fingerprint
        return entry
    }

    @Test func aNewContactIsPinnedOnFirstUse() throws {
        var book = ContactBook()
        #expect(book.verdict(for: bob.entry()) == .unknown)
        let pinnedFirst = try book.check(bob.entry())
        #expect(pinnedFirst)
        #expect(book.contact(named: bob.nickname)?.fingerprint == bob.fingerprint)
        let pinnedAgain = try book.check(bob.entry())
        #expect(!pinnedAgain)
    }

    @Test func sendingToAChangedKeyIsRefusedUntilTrusted() throws {
        var book = ContactBook()
        book.pin(bob.entry())
        let changed = bobWithOtherKeys
        let error = #expect(throws: WotsError.self) {
            var copy = book
            _ = try copy.check(changed)
        }
        #expect(error?.code == .keyChanged)
        #expect(error?.reason.contains(bob.fingerprint.grouped) == true)
        #expect(error?.reason.contains(mallory.fingerprint.grouped) == true)
        #expect(error?.reason.contains("wots trust bob") == true)
        #expect(book.contact(named: bob.nickname)?.fingerprint == bob.fingerprint, "a refusal pins nothing")

        book.pin(changed)
        let pinnedAfterTrust = try book.check(changed)
        #expect(!pinnedAfterTrust)
        #expect(book.contacts.count == 1)
    }

    @Test func aNicknameMovedToAnotherTokenIsAChange() throws {
        var book = ContactBook()
        book.pin(bob.entry())
        var impostor = mallory.entry()
        impostor.nickname = bob.nickname
        guard case .changed = book.verdict(for: impostor) else {
            Issue.record("a new token under a pinned nickname must be a change")
            return
        }
    }

    @Test func pinsSurviveSavingAndLoading() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        var book = try store.contactBook()
        #expect(book.contacts.isEmpty)
        book.pin(bob.entry())
        try store.save(book)
        let loaded = try store.contactBook()
        #expect(loaded.contact(token: bob.token)?.publicKeys == bob.publicKeys)
    }
}
