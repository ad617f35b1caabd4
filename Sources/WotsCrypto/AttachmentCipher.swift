import Foundation
import WotsCore

/// Encrypts an attachment for upload and checks and decrypts it after download, a chunk at a time from file to file.
///
/// Layout (SECURITY.md, "Attachments"): the file is cut into chunks of `chunkSize` plaintext bytes (an empty file is
/// one empty chunk); chunk `i` of `n` is AES-256-GCM under the file key with nonce `u64(i) || u8(i == n−1) || 000000`
/// and associated data `"wots-attachment-v1" || 0x00`, written as ciphertext || tag. The blob is the chunks in order,
/// `size + 16·n` bytes; its SHA-256 is the digest the message carries.
public struct AttachmentCipher: Sendable {
    /// Plaintext bytes per chunk.
    public static let chunkSize = 65_536
    /// Bytes each chunk adds: its GCM tag.
    public static let tagSize = AESGCM.tagSize
    static let associatedData = Array("wots-attachment-v1".utf8) + [0]

    /// The file key: 32 bytes.
    public let key: [UInt8]

    /// - Throws: `attachment_corrupt` when the key is not 32 bytes.
    public init(key: [UInt8]) throws {
        guard key.count == AESGCM.keySize else {
            throw WotsError(.attachmentCorrupt, "an attachment key is 32 bytes, got \(key.count)")
        }
        self.key = key
    }

    /// A cipher with a fresh random key.
    public static func random() throws -> AttachmentCipher {
        try AttachmentCipher(key: SecureRandom.bytes(AESGCM.keySize))
    }

    /// How many chunks a file of `size` bytes is cut into (at least one).
    public static func chunkCount(plaintextSize size: Int64) -> Int64 {
        max(1, (size + Int64(chunkSize) - 1) / Int64(chunkSize))
    }

    /// The blob's size for a file of `size` bytes.
    public static func encryptedSize(plaintextSize size: Int64) -> Int64 {
        size + Int64(tagSize) * chunkCount(plaintextSize: size)
    }

    static func nonce(index: Int64, isFinal: Bool) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(integer: UInt64(index))
        writer.write(integer: UInt8(isFinal ? 1 : 0))
        writer.write([0, 0, 0])
        return writer.bytes
    }

    /// Encrypts the file at `source` into a new file at `destination`.
    /// - Returns: the plaintext size, the blob's size and its SHA-256.
    /// - Throws: `invalid_input` when a file cannot be read or written.
    public func encrypt(fileAt source: String, to destination: String) throws -> SealedAttachment {
        let input = try AttachmentFile(reading: source)
        let output = try AttachmentFile(creating: destination)
        let size = try input.size()
        let count = Self.chunkCount(plaintextSize: size)
        let digest = try SHA256.Stream()
        for index in 0..<count {
            let plaintext = try input.read(Self.chunkSize)
            let sealed = try AESGCM.seal(
                plaintext,
                key: self.key,
                nonce: Self.nonce(index: index, isFinal: index == count - 1),
                aad: Self.associatedData
            )
            try digest.update(sealed)
            try output.write(sealed)
        }
        guard try input.read(1).isEmpty else {
            throw WotsError(.invalidInput, "\(source) grew while it was being encrypted")
        }
        try output.finish()
        return SealedAttachment(
            size: size,
            encryptedSize: Self.encryptedSize(plaintextSize: size),
            digest: try digest.finish()
        )
    }

    /// Checks the blob at `source` (its size, its SHA-256, every chunk's tag, the final flag on the last chunk and
    /// on no other) and writes the plaintext to a new file at `destination`.
    /// - Parameters:
    ///   - size: the plaintext size the message announced.
    ///   - digest: the blob's SHA-256 the message announced.
    /// - Throws: `attachment_corrupt` for any mismatch (the destination may then hold part of the plaintext: delete
    ///   it); `invalid_input` when a file cannot be read or written.
    public func decrypt(fileAt source: String, to destination: String, size: Int64, digest: [UInt8]) throws {
        let input = try AttachmentFile(reading: source)
        let expected = Self.encryptedSize(plaintextSize: size)
        let actual = try input.size()
        guard size >= 0, actual == expected else {
            throw WotsError(
                .attachmentCorrupt,
                "the attachment is \(actual) encrypted bytes; a \(size)-byte file makes \(expected)"
            )
        }
        guard constantTimeEquals(try SHA256.hash(fileAt: source), digest) else {
            throw WotsError(.attachmentCorrupt, "the attachment's SHA-256 is not the digest its message names")
        }
        let output = try AttachmentFile(creating: destination)
        let count = Self.chunkCount(plaintextSize: size)
        for index in 0..<count {
            let sealed = try input.read(Self.chunkSize + Self.tagSize)
            var plaintext = try AESGCM.open(
                sealed,
                key: self.key,
                nonce: Self.nonce(index: index, isFinal: index == count - 1),
                aad: Self.associatedData,
                failure: WotsError(
                    .attachmentCorrupt,
                    "chunk \(index) of \(count) of the attachment does not verify (changed, missing or out of order)"
                )
            )
            try output.write(plaintext)
            cleanse(&plaintext)
        }
        try output.finish()
    }
}

/// What encrypting a file produced.
public struct SealedAttachment: Sendable, Hashable {
    /// Plaintext bytes.
    public var size: Int64
    /// Blob bytes: `size` plus 16 per chunk.
    public var encryptedSize: Int64
    /// SHA-256 of the whole blob.
    public var digest: [UInt8]
}
