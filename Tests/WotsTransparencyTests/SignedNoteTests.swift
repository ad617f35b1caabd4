import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTransparency

@Suite struct SignedNoteTests {
    static let key = try! LogKey(
        name: "wots.example/log",
        privateKey: try! Ed25519PrivateKey(seed: Array(repeating: 7, count: 32))
    )
    static let other = try! LogKey(
        name: "witness.example/w1",
        privateKey: try! Ed25519PrivateKey(seed: Array(repeating: 9, count: 32))
    )
    static let text = "wots.example/log\n13\nZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyMTI=\n"

    static func note(_ text: String = Self.text) throws -> SignedNote { try Self.key.sign(text: text) }

    static func code(_ body: () throws -> Void) -> ErrorCode? {
        do {
            try body()
            return nil
        } catch {
            return (error as? WotsError)?.code
        }
    }

    /// Parses `note` and verifies it with the test key, answering the error code or nil for success.
    static func outcome(_ note: String) -> ErrorCode? {
        Self.code { try SignedNote(parsing: note).verify(trusting: Self.key.verifier) }
    }

    @Test func aSignedNoteRoundTripsByteForByteAndVerifies() throws {
        let note = try Self.note()
        let formatted = note.formatted
        #expect(formatted.hasPrefix(Self.text + "\n\u{2014} wots.example/log "))
        #expect(formatted.hasSuffix("\n") && formatted.split(separator: "\n").count == 4)
        let parsed = try SignedNote(parsing: note.serialized)
        #expect(parsed == note && parsed.serialized == note.serialized)
        #expect(try parsed.verify(trusting: [Self.other.verifier, Self.key.verifier]) == [Self.key.verifier])
        let signature = try #require(parsed.signatures.first)
        #expect(signature.keyID == Self.key.verifier.keyID && signature.signature.count == 64)
    }

    @Test func aChangedBodyOrSignatureFailsAsABadSignature() throws {
        let formatted = try Self.note().formatted
        #expect(Self.outcome(formatted) == nil)
        // "wots" → "vots": one bit of the body.
        #expect(Self.outcome("v" + formatted.dropFirst()) == .badSignature)

        let signature = try #require(try Self.note().signatures.first)
        var bytes = signature.signature
        bytes[10] ^= 0x20
        let flipped = try NoteSignature(keyName: signature.keyName, keyID: signature.keyID, signature: bytes)
        #expect(Self.outcome(try SignedNote(text: Self.text, signatures: [flipped]).formatted) == .badSignature)
    }

    @Test func aSignatureUnderAnotherNameOrKeyIDIsIgnoredSoTheNoteIsUnverified() throws {
        let signature = try #require(try Self.note().signatures.first)
        let renamed = try NoteSignature(
            keyName: "wots.example/other",
            keyID: signature.keyID,
            signature: signature.signature
        )
        let renumbered = try NoteSignature(
            keyName: signature.keyName,
            keyID: signature.keyID ^ 1,
            signature: signature.signature
        )
        for wrong in [renamed, renumbered] {
            #expect(Self.outcome(try SignedNote(text: Self.text, signatures: [wrong]).formatted) == .unverifiedNote)
        }
    }

    @Test func brokenLayoutsAreMalformed() throws {
        let formatted = try Self.note().formatted
        let signatureLine = String(formatted.split(separator: "\n").last!)
        let broken = [
            Self.text + signatureLine + "\n",  // no blank line
            formatted + "garbage",  // trailing bytes without newline
            formatted + "garbage\n",  // a line that is no signature
            formatted + "\n",  // a blank line after the signatures
            formatted.replacingOccurrences(of: "\u{2014} ", with: "- "),  // hyphen for the em dash
            formatted.replacingOccurrences(of: "\u{2014} ", with: "\u{2014}"),  // no space after the em dash
            String(formatted.dropLast()),  // no final newline
            Self.text + "\n",  // no signatures
            formatted.replacingOccurrences(of: "=\n", with: "\n"),  // base64 without padding
            formatted.replacingOccurrences(of: "log ", with: "log  "),  // two spaces
            formatted.replacingOccurrences(of: "13\n", with: "13\r\n"),  // a control character
            formatted.replacingOccurrences(of: "13\n", with: "1\t3\n"),
            "\u{2014} wots.example/log AAAAAAA=\n",  // a signature line and nothing else
            "",
        ]
        for note in broken {
            #expect(Self.outcome(note) == .malformed, "\(note.debugDescription)")
        }
        #expect(Self.code { _ = try SignedNote(parsing: [0xFF] + Array(formatted.utf8)) } == .malformed)
    }

    @Test func signaturesFromUnknownKeysAreIgnoredButTrustedOnesMustAllVerify() throws {
        let own = try #require(try Self.note().signatures.first)
        let witness = try Self.other.signature(forText: Self.text)
        let junk = try NoteSignature(keyName: "junk.example", keyID: 42, signature: [1, 2, 3])
        let cosigned = try SignedNote(text: Self.text, signatures: [junk, witness, own, junk])
        #expect(Self.outcome(cosigned.formatted) == nil)
        #expect(try cosigned.verify(trusting: [Self.key.verifier, Self.other.verifier]).count == 2)

        let twice = try SignedNote(text: Self.text, signatures: [own, own])
        #expect(Self.outcome(twice.formatted) == .malformed)

        let badWitness = try NoteSignature(keyName: witness.keyName, keyID: witness.keyID, signature: own.signature)
        let mixed = try SignedNote(text: Self.text, signatures: [own, badWitness])
        #expect(
            Self.code { _ = try mixed.verify(trusting: [Self.key.verifier, Self.other.verifier]) } == .badSignature
        )
        #expect(Self.code { _ = try mixed.verify(trusting: [Self.key.verifier]) } == nil)
    }

    @Test func theTextEndsAtTheLastBlankLine() throws {
        let text = "first\n\nthird, after a blank line\n\n"
        let note = try Self.note(text)
        let parsed = try SignedNote(parsing: note.formatted)
        #expect(parsed.text == text)
        #expect(Self.outcome(note.formatted) == nil)
    }

    @Test func sizesAndSignatureCountsAreBounded() throws {
        let own = try #require(try Self.note().signatures.first)
        let junk = try NoteSignature(keyName: "junk.example", keyID: 42, signature: [1, 2, 3])
        let hundred = try SignedNote(text: Self.text, signatures: [own] + Array(repeating: junk, count: 99))
        #expect(Self.outcome(hundred.formatted) == nil)
        #expect(Self.outcome(hundred.formatted + junk.line + "\n") == .malformed)
        #expect(
            Self.code { _ = try SignedNote(text: Self.text, signatures: [own] + Array(repeating: junk, count: 100)) }
                == .malformed
        )
        #expect(Self.code { _ = try SignedNote(text: Self.text, signatures: []) } == .malformed)

        let long = String(repeating: "x", count: SignedNote.maximumByteCount) + "\n"
        #expect(Self.outcome(long + "\n" + own.line + "\n") == .malformed)
        #expect(Self.code { _ = try Self.key.sign(text: long) } == .malformed)
    }

    @Test func keyNamesHaveNoSpacesPlusSignsOrControls() {
        for name in [
            "", "a b", "a+b", "a\nb", "a\tb", "a\u{00A0}b", "a\u{2003}b", String(repeating: "n", count: 1_025),
        ] {
            #expect(
                Self.code { _ = try NoteSignature(keyName: name, keyID: 1, signature: [1]) } == .malformed,
                "\(name.debugDescription)"
            )
            #expect(
                Self.code { _ = try LogKey(name: name, privateKey: try Ed25519PrivateKey.generate()) } == .invalidKey
            )
        }
        #expect(Self.code { _ = try NoteSignature(keyName: "ok.example/é", keyID: 1, signature: []) } == .malformed)
    }

    @Test func anyMangledNoteIsParsedCanonicallyOrRefusedButNeverCrashes() throws {
        let valid = Array(
            try SignedNote(
                text: Self.text,
                signatures: [try Self.note().signatures[0], try Self.other.signature(forText: Self.text)]
            ).serialized
        )
        let alphabet: [UInt8] = Array("\n \u{2014}+=/aA0".utf8) + [0x00, 0x80, 0xE2, 0xFF]
        var generator = SeededGenerator(seed: 1_000)
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                default: bytes = Array(bytes[..<position])
                }
            }
            do {
                let note = try SignedNote(parsing: bytes)
                #expect(note.serialized == bytes, "an accepted note must have one spelling")
                accepted += 1
            } catch {
                #expect((error as? WotsError)?.code == .malformed, "\(error)")
            }
        }
        #expect(accepted > 0 && accepted < 3_000)
    }
}
