import Foundation
import Testing
import WotsCore

/// The relay reads `send` frames with a scanner for plain JSON and leaves everything else to Foundation's decoder:
/// whatever the scanner reads must be exactly the frame Foundation reads, and what it cannot read it must refuse.
@Suite struct ScannedSendFrameTests {
    private static func foundation(_ bytes: [UInt8]) -> ClientFrame? {
        try? WireCoding.makeDecoder().decode(ClientFrame.self, from: Data(bytes))
    }

    private static func sendFrame(ref: String? = "r1", ephemeral: Bool = false, version: UInt8 = 2) throws -> [UInt8] {
        let envelope = try EnvelopeLayoutTests.sample(version: version)
        let frame = ClientFrame(ephemeral ? .sendEphemeral(envelope) : .send(envelope), ref: ref)
        return Array(try WireCoding.makeEncoder().encode(frame))
    }

    @Test(arguments: [UInt8(1), 2])
    func aSendFrameAsClientsWriteItIsReadAsFoundationReadsIt(version: UInt8) throws {
        for (ref, ephemeral) in [("r1", false), (nil, false), ("typing-1", true)] as [(String?, Bool)] {
            let bytes = try Self.sendFrame(ref: ref, ephemeral: ephemeral, version: version)
            let scanned = try #require(ClientFrame.scanSend(bytes))
            #expect(scanned == Self.foundation(bytes))
        }
    }

    @Test func keyOrderAndWhitespaceDoNotMatter() throws {
        let envelope = try EnvelopeLayoutTests.sample()
        let encoder = WireCoding.makeEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        let bytes = Array(try encoder.encode(ClientFrame(.send(envelope), ref: "x")))
        #expect(ClientFrame.scanSend(bytes) == Self.foundation(bytes))
        #expect(ClientFrame.scanSend(bytes) != nil)
    }

    @Test(arguments: [
        #"{"type":"send","ref":"a\"b","envelope":ENV}"#,
        #"{"type":"send","type":"send","envelope":ENV}"#,
        #"{"type":"send","envelope":ENV,"extra":1}"#,
        #"{"type":"send","ref":null,"envelope":ENV}"#,
        #"{"type":"send","envelope":ENV,"ephemeral":1}"#,
        #"{"type":"ack","messages":[]}"#,
        #"{"type":"send","envelope":ENV} x"#,
        #"{"type":"send","envelope":ENV"#,
    ])
    func anythingOutsideThePlainSubsetIsLeftToFoundation(template: String) throws {
        let envelope = String(
            decoding: try WireCoding.makeEncoder().encode(EnvelopeLayoutTests.sample()),
            as: UTF8.self
        )
        let bytes = Array(template.replacingOccurrences(of: "ENV", with: envelope).utf8)
        #expect(ClientFrame.scanSend(bytes) == nil)
    }

    @Test(arguments: [
        (#""version":2"#, #""version":2.0"#), (#""version":2"#, #""version":02"#), (#""version":2"#, #""version":-2"#),
        (#""version":2"#, #""version":3"#), (#""version":2"#, #""version":"2""#),
        (#""nonce":""#, #""nonce":"@@"#), (#""expiresAt":"#, #""expiresAt":1e3,"x":"#),
    ])
    func aBadOrUnusualValueIsLeftToFoundation(original: String, replacement: String) throws {
        let text = String(decoding: try Self.sendFrame(), as: UTF8.self)
        #expect(text.contains(original))
        let bytes = Array(text.replacingOccurrences(of: original, with: replacement).utf8)
        #expect(ClientFrame.scanSend(bytes) == nil)
    }

    /// Thousands of random one-byte changes: the scanner may refuse any of them, but one it reads Foundation must
    /// read as the same frame.
    @Test func whatTheScannerReadsFromAMangledFrameFoundationReadsTheSame() throws {
        var read = 0
        for bytes in oneByteMutations(of: try Self.sendFrame(), count: 5_000) {
            guard let scanned = ClientFrame.scanSend(bytes) else { continue }
            read += 1
            #expect(scanned == Self.foundation(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(read > 0)
    }
}
