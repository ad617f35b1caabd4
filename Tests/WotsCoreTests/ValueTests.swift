import Foundation
import Testing
import WotsCore

@Suite struct NicknameTests {
    @Test func nicknamesAreLowerCased() throws {
        #expect(try Nickname("Alice_01").value == "alice_01")
    }

    @Test(arguments: ["al", String(repeating: "a", count: 33), "bad name", "émile", "a/b", ""])
    func invalidNicknamesAreRefusedWithTheRule(text: String) {
        #expect(throws: WotsError(.invalidNickname, "")) { try Nickname(text) }
    }

    @Test func theRefusalNamesTheValueAndTheRule() {
        do {
            _ = try Nickname("Al")
            Issue.record("accepted a two-letter nickname")
        } catch {
            #expect(String(describing: error) == "nickname \"Al\" is too short (3–32 characters)")
        }
    }

    @Test(arguments: ["0day", "a.b", "x-_", "Zoe.K", "abc" + String(repeating: "-", count: 29)])
    func lettersDigitsAndInnerPunctuationAreAccepted(text: String) throws {
        #expect(try Nickname(text).value == text.lowercased())
    }

    @Test(arguments: ["...", "-dash", "_x_", ".hidden", "--nick"])
    func aNicknameMustStartWithALetterOrDigit(text: String) {
        let error = #expect(throws: WotsError.self) { try Nickname(text) }
        #expect(error?.code == .invalidNickname)
        #expect(error?.reason == "nickname \"\(text)\" must start with a letter or digit (a-z, 0-9)")
    }

    @Test func aCharacterThatIsNotAllowedIsNamedReadably() {
        let emoji = #expect(throws: WotsError.self) { try Nickname("smile😀") }
        #expect(emoji?.reason == "nickname \"smile😀\" contains \"😀\" (U+1F600) (allowed: a-z 0-9 _ . -)")
        let space = #expect(throws: WotsError.self) { try Nickname("bad name") }
        #expect(space?.reason.contains("contains a space (U+0020)") == true)
        let accent = #expect(throws: WotsError.self) { try Nickname("émile") }
        #expect(accent?.reason.contains("\"é\" (U+00E9)") == true)
    }

    @Test func anUnprintableCharacterIsNamedByItsCodeAndNeverEchoed() {
        let error = #expect(throws: WotsError.self) { try Nickname("bell\u{7}\u{1B}[2J") }
        let reason = error?.reason ?? ""
        #expect(reason.contains("contains U+0007 "))
        #expect(!reason.unicodeScalars.contains { $0.properties.generalCategory == .control })
        #expect(!reason.contains("\\u{"))
    }

    @Test func nonASCIILettersThatLowerCaseToASCIIAreRefused() {
        // U+212A KELVIN SIGN lower-cases to "k": "\u{212A}ate" must not become a second "kate".
        #expect(throws: WotsError(.invalidNickname, "")) { try Nickname("\u{212A}ate") }
    }
}

@Suite struct TokenTests {
    @Test func aTokenIs26CharactersOfBase32AndRoundTrips() throws {
        let token = try Token(bytes: Array(0..<16))
        #expect(token.description.count == 26)
        #expect(try Token(token.description) == token)
    }

    @Test(arguments: ["", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxy1", "abcdefghijklmnopqrstuvwxyz"])
    func nonCanonicalSpellingsAreRefused(text: String) {
        #expect(throws: WotsError(.invalidToken, "")) { try Token(text) }
    }
}

@Suite struct FingerprintTests {
    @Test func groupedSpellingIsSixteenGroupsOfFourHexDigits() throws {
        let fingerprint = try Fingerprint(bytes: Array(repeating: 0xAB, count: 32))
        let groups = fingerprint.grouped.split(separator: " ")
        #expect(groups.count == 16)
        #expect(groups.allSatisfy { $0 == "abab" })
        #expect(try Fingerprint(hex: fingerprint.grouped) == fingerprint)
    }

    @Test func spacesAnywhereAndEitherCaseReadAsTheSameFingerprint() throws {
        let fingerprint = try Fingerprint(bytes: Array(0..<32))
        #expect(try Fingerprint(hex: fingerprint.hex) == fingerprint)
        #expect(try Fingerprint(hex: fingerprint.hex.uppercased()) == fingerprint)
        #expect(try Fingerprint(hex: " " + fingerprint.hex.map { "\($0) " }.joined()) == fingerprint)
    }

    @Test(arguments: [
        String(repeating: "a", count: 63), String(repeating: "a", count: 66), String(repeating: "g", count: 64),
        String(repeating: "a", count: 63) + "\u{301}", String(repeating: "a", count: 62) + "\ta",
    ])
    func anythingButSixtyFourHexDigitsIsRefused(text: String) {
        #expect(throws: WotsError(.invalidFingerprint, "")) { try Fingerprint(hex: text) }
    }
}

@Suite struct CursorTests {
    @Test func aCursorRoundTripsThroughItsOpaqueSpelling() throws {
        let cursor = Cursor(after: try Nickname("zoe.k"))
        #expect(try Cursor(cursor.description) == cursor)
    }

    @Test(arguments: ["", "garbage!", "bjE6", String(repeating: "A", count: 200)])
    func cursorsNotIssuedByTheRelayAreRefused(text: String) {
        #expect(throws: WotsError(.invalidCursor, "")) { try Cursor(text) }
    }

    @Test(arguments: [0, -1, 101])
    func pageLimitsOutside1To100AreRefused(limit: Int) {
        #expect(throws: WotsError(.invalidPageLimit, "")) { try PageLimit(limit) }
    }
}

@Suite struct AvatarTests {
    @Test func pngAndJpegUpTo64KiBAreAccepted() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 100)
        #expect(try Avatar.validatedImage(png) == .image(png))
        #expect(throws: Never.self) { try Avatar.validatedImage([0xFF, 0xD8, 0xFF, 0xE0]) }
    }

    @Test func oversizedOrNonImageAvatarsAreRefused() throws {
        #expect(throws: WotsError(.invalidAvatar, "")) {
            try Avatar.validatedImage([0xFF, 0xD8, 0xFF] + Array(repeating: 0, count: 65_536))
        }
        #expect(throws: WotsError(.invalidAvatar, "")) { try Avatar.validatedImage(Array("GIF89a".utf8)) }
        #expect(throws: WotsError(.invalidAvatar, "")) { try Avatar.preset(named: "unicorn") }
        #expect(try Avatar.preset(named: "Dragon") == .preset(.dragon))
    }
}

@Suite struct LegacyNicknameTests {
    @Test func aNameFromBeforeTheFirstCharacterRuleStillReadsButCannotBeRegisteredAnew() throws {
        #expect(throws: WotsError(.invalidNickname, "")) { try Nickname("...") }
        #expect(try Nickname(naming: "...").value == "...")
        #expect(try Nickname(naming: "_Old").value == "_old")
        let decoded = try JSONDecoder().decode([Nickname].self, from: Data(#"["...", "bob"]"#.utf8))
        #expect(decoded.map(\.value) == ["...", "bob"])
        #expect(throws: WotsError(.invalidNickname, "")) { try Nickname(naming: "a b") }
        #expect(throws: WotsError(.invalidNickname, "")) { try Nickname(naming: "ab") }
    }
}

@Suite struct PublicKeysHashingTests {
    @Test func equalKeysHashAlikeAndWhereOneKeyEndsChangesTheHash() {
        let keys = PublicKeys(signing: Array(0..<200), encryption: Array(100..<255))
        #expect(keys.hashValue == PublicKeys(signing: keys.signing, encryption: keys.encryption).hashValue)
        let movedBoundary = PublicKeys(signing: Array(keys.signing.dropLast()), encryption: [199] + keys.encryption)
        #expect(movedBoundary != keys)
        #expect(movedBoundary.hashValue != keys.hashValue, "the same bytes split differently are other keys")
        let oneByteChanged = PublicKeys(signing: keys.signing, encryption: Array(keys.encryption.dropLast()) + [0])
        #expect(oneByteChanged.hashValue != keys.hashValue)
    }
}
