import Testing
import WotsCore
import WotsTransparency

/// The leaf layout of SECURITY.md ("Log entries"): written byte for byte, read back exactly, nothing else accepted.
@Suite struct DirectoryLogEventTests {
    let event = DirectoryLogEvent(
        kind: .keysRotated,
        token: try! Token(bytes: Array(0..<16)),
        nickname: try! Nickname("alice"),
        publicKeys: PublicKeys(signing: [0xAA, 0xBB], encryption: [0xCC]),
        timeMilliseconds: 0x0102_0304_0506_0708,
        previousLeafIndex: 4,
        attestation: [0xEE]
    )

    @Test func aLeafIsTheDocumentedBytes() throws {
        let expected: [UInt8] =
            Array("wots-log-v1".utf8) + [0x00, 0x02] + Array(0..<16) + [0x00, 0x05] + Array("alice".utf8)
            + [0x00, 0x02, 0xAA, 0xBB] + [0x00, 0x01, 0xCC] + [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
            + [0, 0, 0, 0, 0, 0, 0, 5] + [0x00, 0x01, 0xEE]
        #expect(try self.event.leafBytes() == expected)
        #expect(try DirectoryLogEvent(leafBytes: expected) == self.event)
    }

    @Test func aTokensFirstLeafStoresZeroForItsPrevious() throws {
        var first = self.event
        first.previousLeafIndex = nil
        let leaf = try first.leafBytes()
        #expect(Array(leaf[(leaf.count - 11)..<(leaf.count - 3)]) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try DirectoryLogEvent(leafBytes: leaf).previousLeafIndex == nil)
    }

    @Test func anythingButTheExactLayoutIsRefused() throws {
        let leaf = try self.event.leafBytes()
        var wrongKind = leaf
        wrongKind[12] = 5
        var upperCase = leaf
        upperCase[31] = UInt8(ascii: "A")
        for bad in [leaf + [0], Array(leaf.dropLast()), wrongKind, upperCase, [UInt8](), Array(leaf.dropFirst())] {
            #expect(throws: WotsError.self) { try DirectoryLogEvent(leafBytes: bad) }
        }
    }

    @Test func aRotationAttestationHoldsBothSignaturesLengthPrefixed() {
        #expect(
            DirectoryLogEvent.rotationAttestation(oldKeySignature: [1, 2], newKeySignature: [3])
                == [0, 2, 1, 2, 0, 1, 3]
        )
    }
}
