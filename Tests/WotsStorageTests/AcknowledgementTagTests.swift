import Testing
import WotsCore
import WotsStorage

/// What every mailbox keeps of an acknowledged envelope (`Envelope.acknowledgementTag`): the last 256 bytes of its
/// serialized form, however it is computed.
@Suite struct AcknowledgementTagTests {
    @Test(arguments: [256, 300, 100, 0])
    func theTagIsTheLast256SerializedBytesWhateverTheSignaturesLength(signatureLength: Int) {
        var envelope = TestValues.envelope(from: TestValues.token(), to: TestValues.token())
        envelope.signature = TestValues.randomBytes(signatureLength)
        #expect(envelope.acknowledgementTag == Array(envelope.serialized.suffix(Envelope.acknowledgementTagSize)))
        #expect(envelope.acknowledgementTag.count == Envelope.acknowledgementTagSize)
    }
}
