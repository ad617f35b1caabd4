import Foundation

/// The JSON fields of an attachment reference: the blob id, key in base64, digest in hex, sizes, name, media type.
struct AttachmentWire: Codable {
    var blob: String
    var key: String
    var digest: String
    var size: UInt64
    var chunkSize: Int
    var name: String
    var mediaType: String
    var caption: String?

    init(_ reference: AttachmentReference) {
        self.blob = reference.blob
        self.key = reference.key.base64
        self.digest = Hex.encode(reference.digest)
        self.size = reference.size
        self.chunkSize = reference.chunkSize
        self.name = reference.name
        self.mediaType = reference.mediaType
        self.caption = reference.caption
    }

    /// - Throws: `malformed` naming the field that breaks its rule.
    func reference() throws -> AttachmentReference {
        guard let key = Data(base64Encoded: self.key) else {
            throw WotsError(.malformed, "attachment key is not standard base64")
        }
        guard self.digest.utf8.count == 64, let digest = Hex.decode(self.digest) else {
            throw WotsError(.malformed, "attachment digest is not 64 hex digits")
        }
        return try AttachmentReference(
            blob: self.blob,
            key: Array(key),
            digest: digest,
            size: self.size,
            chunkSize: self.chunkSize,
            name: self.name,
            mediaType: self.mediaType,
            caption: self.caption
        )
    }
}
