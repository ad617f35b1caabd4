import Foundation
import Testing
import WotsClient
import WotsCore

@Suite struct ValidationTests {
    @Test(arguments: ["http://127.0.0.1:8080", "https://relay.example.org/", "http://localhost:1"])
    func relayURLsAreHTTPOrHTTPS(_ url: String) throws {
        #expect(try !RelayClient.normalize(url).hasSuffix("/"))
    }

    @Test(arguments: ["ftp://relay", "relay.example.org", "http://", "http://h/?q=1"])
    func otherRelayURLsAreRefused(_ url: String) {
        #expect(throws: WotsError(.invalidInput, "")) { try RelayClient.normalize(url) }
    }

    @Test func emptyAndOversizedMessagesAreRefused() throws {
        #expect(throws: WotsError(.invalidInput, "")) { try Messenger.validateMessage("") }
        let error = #expect(throws: WotsError.self) {
            try Messenger.validateMessage(String(repeating: "x", count: Messenger.maximumMessageSize + 1))
        }
        #expect(error?.reason.contains("at most 60000") == true)
        try Messenger.validateMessage(String(repeating: "x", count: Messenger.maximumMessageSize))
    }

    @Test(arguments: [" ", "   \n\t", "\u{3000}\u{A0}"])
    func whitespaceOnlyMessagesAreRefused(_ text: String) {
        let error = #expect(throws: WotsError.self) { try Messenger.validateMessage(text) }
        #expect(error?.code == .invalidInput)
        #expect(error?.reason.contains("only whitespace") == true)
    }

    @Test(arguments: [7, 30 * 60, 12 * 3600, 86_400])
    func unlockDurationsReadWithTheirUnit(_ seconds: Int) throws {
        let duration = try UnlockDuration(parsing: "\(seconds)s")
        #expect(duration.seconds == seconds)
        #expect(try UnlockDuration(parsing: duration.description).seconds == seconds)
        #expect(try UnlockDuration(parsing: "30m").seconds == 1800)
        #expect(try UnlockDuration(parsing: "2h").description == "2h")
        #expect(UnlockDuration.standard.description == "12h")
    }

    @Test(arguments: ["", "12", "h", "0h", "-1h", "1.5h", "2w", "8d", "99999999999999999999d"])
    func unlockDurationsWithoutAUnitOrOutOfRangeAreRefused(_ text: String) {
        #expect(throws: WotsError(.invalidInput, "")) { try UnlockDuration(parsing: text) }
    }

    @Test func aNewSecretNeedsEightCharacters() throws {
        let error = #expect(throws: WotsError.self) { try SecretSource.validateNew("short") }
        #expect(error?.reason.contains("at least 8") == true)
        try SecretSource.validateNew("long enough")
    }

    @Test func aSecretFileGivesItsFirstLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("secret")
        try Data("correct horse\nignored\n".utf8).write(to: file)
        #expect(try SecretSource.file(file).read(prompt: "") == "correct horse")
        let missing = #expect(throws: WotsError.self) {
            try SecretSource.file(folder.url.appendingPathComponent("none")).read(prompt: "")
        }
        #expect(missing?.code == .secretUnavailable)
    }

    @Test func avatarsAreCheckedByMagicBytesAndSize() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let png = folder.url.appendingPathComponent("a.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: png)
        #expect(try Avatar.load(file: png) == .image([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]))
        let text = folder.url.appendingPathComponent("a.txt")
        try Data("hello".utf8).write(to: text)
        #expect(throws: WotsError(.invalidInput, "")) { try Avatar.load(file: text) }
        let big = folder.url.appendingPathComponent("big.png")
        try Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 70_000)).write(to: big)
        let error = #expect(throws: WotsError.self) { try Avatar.load(file: big) }
        #expect(error?.reason.contains("at most 65536") == true)
    }
}
