import Foundation
import Testing
import WotsCore

/// The relay decodes an envelope's base64 fields by hand: what it reads must be what Foundation reads, and any spelling
/// but the canonical one it must refuse, so that Foundation's decoder, reading the frame instead, decides.
@Suite struct Base64TextTests {
    @Test func whatIsWrittenIsReadBackForEveryLengthAndRemainder() {
        var generator = SystemRandomNumberGenerator()
        for count in 0..<200 {
            let data = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var text: [UInt8] = []
            Base64Text.append(data, to: &text)
            #expect(Base64Text.decode(text[...]) == data)
            #expect(text == Array(Data(data).base64EncodedString().utf8))
        }
    }

    @Test(arguments: [
        "QR==", "QUF=", "QQ", "QUE", "QQ=", "Q===", "====", "QQ=A", "QQ==QUFB", "=QQ=", " QUFB", "QUFB\n", "QU FB",
        "QUF!", "-_-_", "QUFB\u{0}", "Q=QQ", "QQ.Q", "!QQQQUFB", "QUFBQ!QQ",
    ])
    func anyOtherSpellingIsRefused(text: String) {
        #expect(Base64Text.decode(Array(text.utf8)[...]) == nil)
    }

    /// Random short texts over the alphabet and `=`: whatever the decoder reads, Foundation reads as the same bytes.
    @Test func whatItReadsFoundationReadsTheSame() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        var generator = SystemRandomNumberGenerator()
        var read = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            guard let decoded = Base64Text.decode(text[...]) else { continue }
            read += 1
            #expect(Data(base64Encoded: String(decoding: text, as: UTF8.self)).map(Array.init) == decoded)
        }
        #expect(read > 100)
    }
}
