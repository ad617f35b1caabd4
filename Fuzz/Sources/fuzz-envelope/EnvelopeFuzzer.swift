import Foundation
import FuzzSupport
import WotsCore

/// `Envelope(serialized:)`, the binary form a client opens: refuses with a `WotsError` or parses to a value whose
/// canonical bytes are the input, and whose JSON form round-trips.
enum EnvelopeFuzzer {
    static func check(_ bytes: [UInt8]) {
        guard let envelope = Fuzz.wotsErrorOrValue({ try Envelope(serialized: bytes) }) else { return }
        Fuzz.require(envelope.serialized == bytes, "a parsed envelope does not serialize to its input")
        Fuzz.require(envelope.serializedSize == bytes.count, "serializedSize disagrees with the serialized bytes")
        Fuzz.require(envelope.signedBytes.starts(with: Envelope.signatureLabel), "signed bytes lack the label")
        if let json = try? WireCoding.makeEncoder().encode(envelope) {
            Fuzz.roundTripJSON(Envelope.self, json)
        }
    }
}
