import WotsCore

/// Pads plaintexts to a multiple of 256 bytes so sizes leak only in 256-byte steps.
///
/// `plaintext || 0x80 || 0x00…` up to the next multiple of 256, always at least one byte of padding.
/// Removal strips trailing zero bytes, then requires and strips one 0x80.
enum MessagePadding {
    static let blockSize = 256

    static func pad(_ plaintext: [UInt8]) -> [UInt8] {
        let paddedCount = (plaintext.count / blockSize + 1) * blockSize
        var padded = [UInt8]()
        padded.reserveCapacity(paddedCount)
        padded.append(contentsOf: plaintext)
        padded.append(0x80)
        padded.append(contentsOf: repeatElement(0, count: paddedCount - padded.count))
        return padded
    }

    /// - Throws: `WotsError.malformed` when the padding is not there or the length is not a multiple of 256.
    static func unpad(_ padded: [UInt8]) throws -> [UInt8] {
        guard !padded.isEmpty, padded.count % blockSize == 0 else {
            throw WotsError(.malformed, "padded plaintext is \(padded.count) bytes (must be a multiple of 256)")
        }
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else {
            throw WotsError(.malformed, "plaintext padding does not end in 0x80 followed by zero bytes")
        }
        guard padded.count - marker <= blockSize else {
            throw WotsError(.malformed, "plaintext padding is longer than 256 bytes")
        }
        return Array(padded[..<marker])
    }
}
