/// A 32-byte SHA-256 hash in a Merkle tree: a leaf hash, an interior node hash or a tree head (root).
///
/// Stored inline as four words, so a million-node log holds no per-hash heap allocation.
public struct MerkleHash: Sendable, Hashable, CustomStringConvertible {
    /// Length of a hash in bytes.
    public static let byteCount = 32

    // The digest's bytes 0–7, 8–15, 16–23 and 24–31, each read big-endian.
    private var word0: UInt64
    private var word1: UInt64
    private var word2: UInt64
    private var word3: UInt64

    /// Takes exactly 32 bytes.
    /// - Throws: `malformed` for any other length.
    public init(bytes: some Collection<UInt8>) throws {
        guard bytes.count == Self.byteCount else {
            throw Refuse.malformed("hash is \(bytes.count) bytes (must be \(Self.byteCount))")
        }
        var words: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in bytes.enumerated() {
            words[offset / 8] = words[offset / 8] << 8 | UInt64(byte)
        }
        (self.word0, self.word1, self.word2, self.word3) = (words[0], words[1], words[2], words[3])
    }

    /// Reads 32 bytes at `pointer`.
    init(loading pointer: UnsafeRawPointer) {
        self.word0 = UInt64(bigEndian: pointer.loadUnaligned(as: UInt64.self))
        self.word1 = UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        self.word2 = UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        self.word3 = UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// Writes the 32 bytes at `pointer`.
    func store(into pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: self.word0.bigEndian, as: UInt64.self)
        pointer.storeBytes(of: self.word1.bigEndian, toByteOffset: 8, as: UInt64.self)
        pointer.storeBytes(of: self.word2.bigEndian, toByteOffset: 16, as: UInt64.self)
        pointer.storeBytes(of: self.word3.bigEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.byteCount) { buffer, count in
            self.store(into: UnsafeMutableRawPointer(buffer.baseAddress!))
            count = Self.byteCount
        }
    }

    /// Parses standard base64 with padding, as in checkpoints and proof JSON; only the canonical spelling.
    /// - Throws: `malformed` unless `base64` is the canonical base64 of 32 bytes.
    public init(base64: String) throws {
        guard let bytes = StrictBase64.decode(base64) else {
            throw Refuse.malformed("hash \"\(base64.prefix(64))\" is not canonical standard base64")
        }
        try self.init(bytes: bytes)
    }

    /// Standard base64 with padding (44 characters).
    public var base64: String { StrictBase64.encode(self.bytes) }

    public var description: String { self.base64 }
}
