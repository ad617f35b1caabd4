import FuzzSupport
import WotsCore
import WotsTransparency

/// The transparency log's outside input: a C2SP signed note (`SignedNote(parsing:)`), the checkpoint text inside it,
/// a verifier key string, and inclusion and consistency proofs as a relay serves them. Each refuses with a
/// `WotsError` or parses to a value that writes back the bytes it came from.
enum SignedNotesFuzzer {
    static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let note = Fuzz.wotsErrorOrValue({ try SignedNote(parsing: bytes) }) {
            Fuzz.require(note.serialized == bytes, "a parsed note does not write back its bytes")
            _ = Fuzz.wotsErrorOrValue { try note.verify(trusting: testLog) }
            if let checkpoint = Fuzz.wotsErrorOrValue({ try Checkpoint(text: note.text) }) {
                Fuzz.require(checkpoint.text == note.text, "a parsed checkpoint does not write back its text")
            }
            _ = Fuzz.wotsErrorOrValue {
                try Checkpoint(verifyingNote: bytes, origin: testLog.name, verifiers: [testLog])
            }
        }
        if let checkpoint = Fuzz.wotsErrorOrValue({ try Checkpoint(text: text) }) {
            Fuzz.require(checkpoint.text == text, "a parsed checkpoint does not write back its text")
        }
        if let verifier = Fuzz.wotsErrorOrValue({ try NoteVerifier(verifierKey: text) }) {
            Fuzz.require(verifier.verifierKey == text, "a parsed verifier key does not write back its text")
        }
        checkProofs(bytes)
    }
}

/// The test log key of schema/vectors/checkpoint-v1.json.
private let testLog = try! NoteVerifier(
    verifierKey: "wots.example/test-log+ce4e6e34+AQD3xWcYog+xzb1l7rPSVyPN6PTGcvef3HZAI2yCsJ5F"
)

/// Reads the bytes as two sizes and a list of hashes, and checks them as both kinds of proof.
private func checkProofs(_ bytes: [UInt8]) {
    guard bytes.count >= 16 else { return }
    let first = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let second = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let hashes = stride(from: 16, to: bytes.count - 31, by: 32).prefix(70).compactMap {
        try? MerkleHash(bytes: bytes[$0..<$0 + 32])
    }
    let leaf = hashes.first ?? (try! MerkleHash(bytes: [UInt8](repeating: 0, count: 32)))
    let root = hashes.last ?? leaf
    let inclusion = InclusionProof(leafIndex: first, treeSize: second, hashes: hashes)
    _ = Fuzz.wotsErrorOrValue { try inclusion.verify(leafHash: leaf, rootHash: root) }
    _ = Fuzz.wotsErrorOrValue { try inclusion.rootHash(leafHash: leaf) }
    let consistency = ConsistencyProof(oldSize: first, newSize: second, hashes: hashes)
    _ = Fuzz.wotsErrorOrValue { try consistency.verify(oldRoot: leaf, newRoot: root) }
}
