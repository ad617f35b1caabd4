import Foundation
import Testing
import WotsClient
import WotsCore
import WotsCrypto
import WotsTesting

@Suite struct LocalStoreTests {
    let alice = TestIdentities.alice

    func aliceAccount() throws -> LocalAccount {
        LocalAccount(
            profile: Profile(
                token: alice.token,
                nickname: alice.nickname,
                relay: "http://127.0.0.1:8080",
                publicKeys: alice.publicKeys,
                fingerprint: alice.fingerprint,
                registeredAt: Date(timeIntervalSince1970: 1_735_689_600)
            ),
            privateRecord: try alice.privateRecord()
        )
    }

    @Test func filesAre0600AndTheFolderIs0700() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        try store.create(try aliceAccount())
        var book = ContactBook()
        book.pin(TestIdentities.bob.entry())
        try store.save(book)
        var seen = SeenMessages()
        seen.insert(MessageKey(sender: TestIdentities.bob.token, id: UUID()))
        try store.save(seen)

        #expect(try mode(of: folder.home) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.home.path).sorted()
        #expect(names == ["contacts.json", "private-record.json", "profile.json", "seen-messages.json"])
        for name in names {
            #expect(try mode(of: folder.home.appendingPathComponent(name)) == 0o600, "\(name)")
        }
    }

    @Test func noUnencryptedPrivateKeyIsEverWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        try store.create(try aliceAccount())
        try store.replace(try aliceAccount())

        let secrets = ["signing", "encryption"].map { TestIdentities.privateKeyDER("alice", $0) }
        let needles =
            secrets.flatMap { der in [der, Array(Data(der).base64EncodedString().utf8)] }
            + [Array(alice.secret.utf8)]
        let enumerator = FileManager.default.enumerator(at: folder.url, includingPropertiesForKeys: nil)
        var files = 0
        while let url = enumerator?.nextObject() as? URL {
            guard let bytes = try? Array(Data(contentsOf: url)) else { continue }
            files += 1
            for needle in needles {
                // A 64-byte window of the key is enough to prove it is absent (the whole DER would be too).
                let window = needle.count <= 64 ? needle : Array(needle[needle.count / 2..<needle.count / 2 + 64])
                #expect(!contains(bytes, window), "\(url.lastPathComponent) holds private key material")
            }
        }
        #expect(files >= 2)
        // And the sealed record still opens with the secret.
        let account = try store.account()
        #expect(try account.privateRecord.openIdentity(secret: alice.secret).fingerprint == alice.fingerprint)
    }

    @Test func registeringTwiceInOneHomeIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        try store.create(try aliceAccount())
        #expect(throws: WotsError(.alreadyRegistered, "")) { try store.create(try aliceAccount()) }
    }

    @Test func aHomeOpenToOtherUsersIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.home, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.home.path)
        let store = LocalStore(home: folder.home)
        let error = #expect(throws: WotsError.self) { try store.create(try aliceAccount()) }
        #expect(error?.code == .localStore)
        #expect(error?.reason.contains("chmod 700") == true)
    }

    @Test func aMissingAccountSaysHowToMakeOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let error = #expect(throws: WotsError.self) { try LocalStore(home: folder.home).account() }
        #expect(error?.code == .notRegistered)
        #expect(error?.reason.contains("wots register") == true)
    }

    @Test func removingTheAccountLeavesNoFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = LocalStore(home: folder.home)
        try store.create(try aliceAccount())
        try store.removeAccount()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.home.path).isEmpty)
        #expect(!store.hasAccount)
    }

    @Test func theHomeComesFromWotsHomeThenXDGThenHome() {
        #expect(LocalStore.defaultHome(environment: ["WOTS_HOME": "/a", "XDG_DATA_HOME": "/b"]).path == "/a")
        #expect(LocalStore.defaultHome(environment: ["XDG_DATA_HOME": "/b", "HOME": "/h"]).path == "/b/wots")
        #expect(LocalStore.defaultHome(environment: ["HOME": "/h"]).path == "/h/.local/share/wots")
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}
