import Foundation
import Testing
import WotsCore

/// `POST /v1/messages` bodies are read by the same scanner as `send` frames: whatever it reads must be exactly the
/// envelope Foundation's decoder reads, and anything outside the plain subset it must leave to Foundation.
@Suite struct ScannedEnvelopeBodyTests {
    private static func foundation(_ bytes: [UInt8]) -> Envelope? {
        try? WireCoding.makeDecoder().decode(Envelope.self, from: Data(bytes))
    }

    @Test(arguments: [UInt8(1), 2])
    func anEnvelopeAsClientsWriteItIsReadAsFoundationReadsIt(version: UInt8) throws {
        let envelope = try EnvelopeLayoutTests.sample(version: version)
        let bytes = Array(try WireCoding.makeEncoder().encode(envelope))
        #expect(Envelope.scan(bytes) == envelope)
        let encoder = WireCoding.makeEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        let pretty = Array(try encoder.encode(envelope)) + Array("\r\n".utf8)
        #expect(Envelope.scan(pretty) == envelope)
    }

    @Test(arguments: ["[ENV]", "ENV x", "ENV ENV", "{\"envelope\":ENV}", "\u{FEFF}ENV"])
    func aBodyThatIsNotOneEnvelopeIsLeftToFoundation(template: String) throws {
        let envelope = String(
            decoding: try WireCoding.makeEncoder().encode(EnvelopeLayoutTests.sample()),
            as: UTF8.self
        )
        #expect(Envelope.scan(Array(template.replacingOccurrences(of: "ENV", with: envelope).utf8)) == nil)
    }

    /// Thousands of random one-byte changes: the scanner may refuse any of them, but one it reads Foundation must
    /// read as the same envelope.
    @Test func whatTheScannerReadsFromAMangledBodyFoundationReadsTheSame() throws {
        let original = Array(try WireCoding.makeEncoder().encode(EnvelopeLayoutTests.sample()))
        var read = 0
        for bytes in oneByteMutations(of: original, count: 5_000) {
            guard let scanned = Envelope.scan(bytes) else { continue }
            read += 1
            #expect(scanned == Self.foundation(bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(read > 0)
    }
}
