import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTransparency

@Suite struct CheckpointTests {
    static let key = try! LogKey(
        name: "wots.example/log",
        privateKey: try! Ed25519PrivateKey(seed: Array(repeating: 3, count: 32))
    )
    static let root = MerkleTree.leafHash(Array("root".utf8))

    static func code(_ body: () throws -> Void) -> ErrorCode? {
        do {
            try body()
            return nil
        } catch {
            return (error as? WotsError)?.code
        }
    }

    @Test func checkpointTextIsOriginSizeRootThenExtensions() throws {
        let checkpoint = try Checkpoint(origin: "wots.example/log", size: 1_048_576, rootHash: Self.root)
        #expect(checkpoint.text == "wots.example/log\n1048576\n\(Self.root.base64)\n")
        #expect(try Checkpoint(text: checkpoint.text) == checkpoint)

        let extended = try Checkpoint(
            origin: "o",
            size: 0,
            rootHash: MerkleTree.emptyRootHash,
            extensions: ["x y", "— z"]
        )
        #expect(extended.text == "o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nx y\n— z\n")
        #expect(try Checkpoint(text: extended.text) == extended)
        #expect(try Checkpoint(text: "o\n18446744073709551615\n\(Self.root.base64)\n").size == UInt64.max)
    }

    @Test func anythingButTheExactLayoutIsMalformed() {
        let root = Self.root.base64
        let broken = [
            "o\n13\n\(root)",  // no final newline
            "o\n13\n",  // no root line
            "\n13\n\(root)\n",  // empty origin
            "o\n013\n\(root)\n", "o\n+13\n\(root)\n", "o\n-1\n\(root)\n", "o\n 13\n\(root)\n", "o\n1.0\n\(root)\n",
            "o\n\n\(root)\n", "o\n18446744073709551616\n\(root)\n", "o\n١٣\n\(root)\n",
            "o\n13\n\(root.dropLast())\n", "o\n13\n\(root) \n", "o\n13\nAAAA\n", "o\n13\n\n",
            "o\n13\n\(root)\n\n",  // an empty extension line
            "o\n13\n\(root)\nx\r\n", "o\t\n13\n\(root)\n", "o\n13\r\n\(root)\n",
        ]
        for text in broken {
            #expect(Self.code { _ = try Checkpoint(text: text) } == .malformed, "\(text.debugDescription)")
        }
        #expect(Self.code { _ = try Checkpoint(origin: "", size: 1, rootHash: Self.root) } == .malformed)
        #expect(Self.code { _ = try Checkpoint(origin: "a\nb", size: 1, rootHash: Self.root) } == .malformed)
        #expect(
            Self.code { _ = try Checkpoint(origin: "o", size: 1, rootHash: Self.root, extensions: [""]) } == .malformed
        )
    }

    @Test func aSignedCheckpointOpensOnlyForItsOriginAndTrustedKey() throws {
        let checkpoint = try Checkpoint(origin: Self.key.name, size: 42, rootHash: Self.root)
        let note = try checkpoint.signed(with: Self.key).serialized
        let opened = try Checkpoint(verifyingNote: note, origin: Self.key.name, verifiers: [Self.key.verifier])
        #expect(opened == checkpoint)

        #expect(
            Self.code {
                _ = try Checkpoint(verifyingNote: note, origin: "wots.example/other", verifiers: [Self.key.verifier])
            } == .wrongLogOrigin
        )
        let stranger = try LogKey.generate(name: Self.key.name)
        #expect(
            Self.code { _ = try Checkpoint(verifyingNote: note, origin: Self.key.name, verifiers: [stranger.verifier]) }
                == .unverifiedNote
        )
        #expect(
            Self.code { _ = try checkpoint.signed(with: try LogKey.generate(name: "wots.example/other")) }
                == .invalidKey
        )

        // A well-signed note whose text is no checkpoint is still refused.
        let notACheckpoint = try Self.key.sign(text: "hello\n").serialized
        #expect(
            Self.code {
                _ = try Checkpoint(verifyingNote: notACheckpoint, origin: Self.key.name, verifiers: [Self.key.verifier])
            } == .malformed
        )
    }

    @Test func verifierKeysRoundTripAndRefuseEveryOtherSpelling() throws {
        let verifier = Self.key.verifier
        let text = Self.key.verifierKey
        let parts = text.split(separator: "+", maxSplits: 2).map(String.init)
        #expect(parts[0] == "wots.example/log" && parts[1] == verifier.hexKeyID && parts[1].count == 8)
        #expect(try NoteVerifier(verifierKey: text) == verifier)
        #expect(try NoteVerifier(verifierKey: text).keyID == verifier.keyID)

        let otherID = String(format: "%08x", verifier.keyID ^ 0x0100)
        let type2 = Data([0x02] + verifier.publicKey.rawRepresentation).base64EncodedString()
        let broken = [
            "", "wots.example/log", "wots.example/log+\(parts[1])", "+\(parts[1])+\(parts[2])",
            "wots.example/log+\(parts[1].uppercased())+\(parts[2])", "wots.example/log+\(otherID)+\(parts[2])",
            "wots.example/log+\(parts[1].dropLast())+\(parts[2])", "wots example+\(parts[1])+\(parts[2])",
            "wots.example/log+\(parts[1])+\(parts[2].dropLast())", "wots.example/log+\(parts[1])+ \(parts[2])",
            "wots.example/log+\(parts[1])+\(type2)",  // signature type 0x02
            "wots.example/log+\(parts[1])+AQAA", "other.example+\(parts[1])+\(parts[2])",
            String(repeating: "n", count: 5_000) + "+\(parts[1])+\(parts[2])",
        ]
        for key in broken {
            #expect(Self.code { _ = try NoteVerifier(verifierKey: key) } == .invalidKey, "\(key.prefix(80))")
        }
    }
}
