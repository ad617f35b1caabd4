import Foundation
import WotsCore

/// A Bloom filter of message keys (sender, id): `mayContain` is false only for a key never inserted, and true for
/// about 1 % of the others once `capacity` keys are in. Positions come from the process's seeded `Hasher`, so a sender
/// cannot choose ids that collide in another relay process. Not locked: its owner's lock guards it.
struct KeyPresenceFilter: Sendable {
    static let bitsPerKey = 10
    static let positionsPerKey: UInt64 = 7
    /// At most 2^32 bits, so that a position is a 32-bit fraction of them.
    static let largestCapacity = Int(UInt32.max) / bitsPerKey

    let capacity: Int
    private(set) var count = 0
    private var words: [UInt64]
    private let bitCount: UInt64

    init(capacity: Int) {
        self.capacity = min(max(1, capacity), Self.largestCapacity)
        let words = (self.capacity * Self.bitsPerKey + 63) / 64
        self.words = Array(repeating: 0, count: words)
        self.bitCount = UInt64(words * 64)
    }

    /// The memory its bits take.
    var byteCount: Int { self.words.count * MemoryLayout<UInt64>.size }

    /// More keys than it was sized for: false positives grow beyond 1 %.
    var isOverfull: Bool { self.count > self.capacity }

    mutating func insert(_ hash: UInt64) {
        self.count += 1
        for round in 0..<Self.positionsPerKey {
            let position = self.position(round, of: hash)
            self.words[Int(position >> 6)] |= 1 << (position & 63)
        }
    }

    func mayContain(_ hash: UInt64) -> Bool {
        for round in 0..<Self.positionsPerKey {
            let position = self.position(round, of: hash)
            guard self.words[Int(position >> 6)] & (1 << (position & 63)) != 0 else { return false }
        }
        return true
    }

    /// The key's `round`th bit: double hashing over the hash's two halves, scaled to the bits by multiplication.
    @inline(__always)
    private func position(_ round: UInt64, of hash: UInt64) -> UInt64 {
        let fraction = ((hash & 0xFFFF_FFFF) &+ round &* ((hash >> 32) | 1)) & 0xFFFF_FFFF
        return (fraction &* self.bitCount) >> 32
    }

    /// The hash of a key as the filter stores it.
    static func hash(_ key: MessageKey) -> UInt64 {
        key.sender.bytes.withUnsafeBytes { sender in
            withUnsafeBytes(of: key.id.uuid) { id in Self.hash(sender: sender, id: id) }
        }
    }

    /// The hash of a key from its stored columns: the sender's 16 bytes and the id's 16 bytes.
    static func hash(sender: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: sender)
        hasher.combine(bytes: id)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
