/// What a recipient needs to fetch and open an encrypted file: where the blob is, its key, and what to expect.
public struct AttachmentReference: Sendable, Hashable {
    /// The plaintext chunk size our clients use; readers accept any from 4 KiB to 1 MiB.
    public static let defaultChunkSize = 65_536
    public static let chunkSizes = 4_096...1_048_576
    public static let maximumNameBytes = 255
    public static let maximumCaptionBytes = 4_096

    /// The relay's blob id: 26 characters of lowercase base32.
    public var blob: String
    /// The AES-256-GCM file key, 32 bytes.
    public var key: [UInt8]
    /// SHA-256 of the whole blob as uploaded.
    public var digest: [UInt8]
    /// Plaintext bytes.
    public var size: UInt64
    public var chunkSize: Int
    /// The file name the sender gave; never trusted as a path.
    public var name: String
    public var mediaType: String
    public var caption: String?

    /// - Throws: `malformed` naming the field that breaks its rule.
    public init(
        blob: String,
        key: [UInt8],
        digest: [UInt8],
        size: UInt64,
        chunkSize: Int = Self.defaultChunkSize,
        name: String,
        mediaType: String,
        caption: String? = nil
    ) throws {
        guard blob.utf8.count == 26, let bytes = Base32.decode(blob), bytes.count == 16 else {
            throw WotsError(.malformed, "attachment blob id \"\(blob.prefix(40))\" is not 26 characters of base32")
        }
        guard key.count == 32 else { throw WotsError(.malformed, "attachment key is \(key.count) bytes (must be 32)") }
        guard digest.count == 32 else {
            throw WotsError(.malformed, "attachment digest is \(digest.count) bytes (must be 32, SHA-256)")
        }
        guard Self.chunkSizes.contains(chunkSize) else {
            throw WotsError(.malformed, "attachment chunk size \(chunkSize) is outside 4 KiB…1 MiB")
        }
        guard size <= 1 << 40 else { throw WotsError(.malformed, "attachment size \(size) is beyond 1 TiB") }
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameBytes else {
            throw WotsError(.malformed, "attachment name must be 1 to \(Self.maximumNameBytes) bytes")
        }
        guard !mediaType.isEmpty, mediaType.utf8.count <= 255 else {
            throw WotsError(.malformed, "attachment media type must be 1 to 255 bytes")
        }
        guard (caption?.utf8.count ?? 0) <= Self.maximumCaptionBytes else {
            throw WotsError(.malformed, "attachment caption is longer than \(Self.maximumCaptionBytes) bytes")
        }
        self.blob = blob
        self.key = key
        self.digest = digest
        self.size = size
        self.chunkSize = chunkSize
        self.name = name
        self.mediaType = mediaType
        self.caption = caption
    }

    /// Chunks in the blob: at least one (an empty file is one empty final chunk).
    public var chunkCount: UInt64 { max(1, (self.size + UInt64(self.chunkSize) - 1) / UInt64(self.chunkSize)) }

    /// Bytes of the blob: every chunk carries a 16-byte tag.
    public var encryptedSize: UInt64 { self.size + 16 * self.chunkCount }
}
