import Testing
import WotsCore

@testable import WotsCrypto

@Suite struct PaddingTests {
    @Test(arguments: [0, 1, 200, 254, 255, 256, 257, 1_000])
    func paddingAlwaysAddsAMarkerAndReachesAMultipleOf256(_ count: Int) throws {
        let plaintext = [UInt8](repeating: 0xAB, count: count)
        let padded = MessagePadding.pad(plaintext)
        #expect(padded.count % 256 == 0)
        #expect(padded.count > count)
        #expect(padded.count - count <= 256)
        #expect(padded[count] == 0x80)
        #expect(try MessagePadding.unpad(padded) == plaintext)
    }

    @Test func messagesEndingInTheMarkerOrZerosSurvive() throws {
        for plaintext: [UInt8] in [[0x80], [0x80, 0x00], [0x00, 0x00], [0x80, 0x80, 0x00]] {
            #expect(try MessagePadding.unpad(MessagePadding.pad(plaintext)) == plaintext)
        }
    }

    @Test func brokenPaddingIsMalformed() {
        var noMarker = [UInt8](repeating: 0, count: 256)
        #expect(throws: WotsError(.malformed, "")) { try MessagePadding.unpad(noMarker) }
        noMarker[10] = 0x81
        #expect(throws: WotsError(.malformed, "")) { try MessagePadding.unpad(noMarker) }
        #expect(throws: WotsError(.malformed, "")) { try MessagePadding.unpad([]) }
        #expect(throws: WotsError(.malformed, "")) { try MessagePadding.unpad([0x41, 0x80]) }
        var tooLong = [UInt8](repeating: 0, count: 512)
        tooLong[0] = 0x80
        #expect(throws: WotsError(.malformed, "")) { try MessagePadding.unpad(tooLong) }
    }
}
