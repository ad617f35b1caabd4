import Foundation
import FuzzSupport
import WotsCore
import WotsCrypto
import WotsTesting

/// `Envelope(serialized:)`, the binary form a client opens: refuses with a `WotsError` or parses to a value whose
/// canonical bytes are the input, and whose JSON form round-trips. A parsed envelope then goes through the relay's
/// check (`verifySignature`, against alice's keys, the sender of schema/vectors/envelope-v1.json) and bob's
/// `open`, which must refuse with a `WotsError` unless the bytes are a real envelope from alice.
enum EnvelopeFuzzer {
    static func check(_ bytes: [UInt8]) {
        guard let envelope = Fuzz.wotsErrorOrValue({ try Envelope(serialized: bytes) }) else { return }
        Fuzz.require(envelope.serialized == bytes, "a parsed envelope does not serialize to its input")
        Fuzz.require(envelope.serializedSize == bytes.count, "serializedSize disagrees with the serialized bytes")
        Fuzz.require(envelope.signedBytes.starts(with: Envelope.signatureLabel(version: envelope.header.version)), "signed bytes lack the label")
        if let json = try? WireCoding.makeEncoder().encode(envelope) {
            Fuzz.roundTripJSON(Envelope.self, json)
        }
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        _ = Fuzz.wotsErrorOrValue { try envelope.verifySignature(senderKeys: alice.publicKeys) }
        _ = Fuzz.wotsErrorOrValue {
            try envelope.open(as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys)
        }
    }
}
