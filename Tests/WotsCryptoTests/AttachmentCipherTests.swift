import Foundation
import Testing
import WotsCore

@testable import WotsCrypto

@Suite struct AttachmentCipherTests {
    /// A fresh folder with a plaintext file of `size` random bytes, and paths for its blob and its decryption.
    struct Files {
        let folder: URL
        var plaintext: String { self.folder.appendingPathComponent("plain").path }
        var blob: String { self.folder.appendingPathComponent("blob").path }
        var decrypted: String { self.folder.appendingPathComponent("decrypted").path }

        init(size: Int) throws {
            self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("wots-att-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
            try Data(SecureRandom.bytes(size)).write(to: URL(fileURLWithPath: self.plaintext))
        }

        func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
        func remove() { try? FileManager.default.removeItem(at: self.folder) }
    }

    static let sizes = [0, 1, 65_535, 65_536, 65_537, 3 * 65_536 + 100]

    @Test(arguments: sizes)
    func aFileRoundTripsThroughTheBlobLayout(size: Int) throws {
        let files = try Files(size: size)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()

        let sealed = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)

        let blob = try files.read(files.blob)
        let chunks = max(1, (size + 65_535) / 65_536)
        #expect(sealed.size == Int64(size))
        #expect(sealed.encryptedSize == Int64(size + 16 * chunks))
        #expect(blob.count == size + 16 * chunks)
        #expect(sealed.digest == SHA256.hash(blob))
        try cipher.decrypt(fileAt: files.blob, to: files.decrypted, size: sealed.size, digest: sealed.digest)
        #expect(try files.read(files.decrypted) == files.read(files.plaintext))
    }

    @Test func eachChunkIsAESGCMWithTheIndexAndFinalFlagInItsNonce() throws {
        let files = try Files(size: 65_536 + 10)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        _ = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)
        let blob = try files.read(files.blob)
        let plaintext = try files.read(files.plaintext)
        let aad = Array("wots-attachment-v1".utf8) + [0]

        let first = try AESGCM.open(
            Array(blob[0..<65_552]),
            key: cipher.key,
            nonce: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            aad: aad,
            failure: WotsError(.attachmentCorrupt, "")
        )
        let last = try AESGCM.open(
            Array(blob[65_552...]),
            key: cipher.key,
            nonce: [0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0],
            aad: aad,
            failure: WotsError(.attachmentCorrupt, "")
        )
        #expect(first + last == plaintext)
    }

    @Test func aChangedByteIsCorrupt() throws {
        let files = try Files(size: 200_000)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        _ = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)
        var blob = try files.read(files.blob)
        blob[70_000] ^= 0x01
        try files.write(blob, to: files.blob)

        // The digest of the changed blob, as a sender lying about it would announce: the chunk's tag still fails.
        try self.expectCorrupt(cipher, files, size: 200_000, digest: SHA256.hash(blob))
    }

    @Test func aBlobWithoutItsLastChunkIsCorrupt() throws {
        let files = try Files(size: 3 * 65_536)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        _ = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)
        let truncated = Array(try files.read(files.blob).prefix(2 * (65_536 + 16)))
        try files.write(truncated, to: files.blob)

        // Size and digest agree with the truncated blob; only the missing final flag gives it away.
        try self.expectCorrupt(cipher, files, size: 2 * 65_536, digest: SHA256.hash(truncated))
    }

    @Test func reorderedChunksAreCorrupt() throws {
        let files = try Files(size: 3 * 65_536)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        _ = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)
        let blob = try files.read(files.blob)
        let chunk = 65_536 + 16
        let swapped = Array(blob[chunk..<(2 * chunk)] + blob[0..<chunk] + blob[(2 * chunk)...])
        try files.write(swapped, to: files.blob)

        try self.expectCorrupt(cipher, files, size: 3 * 65_536, digest: SHA256.hash(swapped))
    }

    @Test func aWrongDigestOrSizeIsCorruptBeforeAnythingIsDecrypted() throws {
        let files = try Files(size: 1_000)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        let sealed = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)

        try self.expectCorrupt(cipher, files, size: 999, digest: sealed.digest)
        var digest = sealed.digest
        digest[0] ^= 1
        try self.expectCorrupt(cipher, files, size: 1_000, digest: digest)
        #expect(!FileManager.default.fileExists(atPath: files.decrypted))
    }

    @Test func anEmptyFileIsOneEmptyFinalChunk() throws {
        let files = try Files(size: 0)
        defer { files.remove() }
        let cipher = try AttachmentCipher.random()
        let sealed = try cipher.encrypt(fileAt: files.plaintext, to: files.blob)
        #expect(sealed.encryptedSize == 16)
        let tag = try files.read(files.blob)
        let opened = try AESGCM.open(
            tag,
            key: cipher.key,
            nonce: AttachmentCipher.nonce(index: 0, isFinal: true),
            aad: Array("wots-attachment-v1".utf8) + [0],
            failure: WotsError(.attachmentCorrupt, "")
        )
        #expect(opened.isEmpty)
        try cipher.decrypt(fileAt: files.blob, to: files.decrypted, size: 0, digest: sealed.digest)
        #expect(try files.read(files.decrypted).isEmpty)
    }

    private func expectCorrupt(_ cipher: AttachmentCipher, _ files: Files, size: Int64, digest: [UInt8]) throws {
        let error = #expect(throws: WotsError.self) {
            try cipher.decrypt(fileAt: files.blob, to: files.decrypted, size: size, digest: digest)
        }
        #expect(error?.code == .attachmentCorrupt)
    }
}
