import NIOCore

/// RFC 6455 frames as the load generator writes and reads them: client frames masked (§5.3) with a key from a cheap
/// generator, server frames parsed from the socket's bytes without the WebSocket library's per-frame objects.
enum ClientFrames {
    static let text: UInt8 = 0x1
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    /// One whole (FIN) client frame of `opcode` carrying `payload`, masked with `key`.
    static func masked(opcode: UInt8, payload: UnsafeRawBufferPointer, key: UInt32, into buffer: inout ByteBuffer) {
        buffer.writeInteger(0x80 | opcode)
        let count = payload.count
        if count < 126 {
            buffer.writeInteger(UInt8(0x80 | count))
        } else if count <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(count))
        } else {
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(count))
        }
        buffer.writeInteger(key)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { out in
            Self.xor(payload, key: key, into: out)
            return count
        }
    }

    /// `payload` XORed with the big-endian `key` repeated, eight bytes at a time.
    private static func xor(_ payload: UnsafeRawBufferPointer, key: UInt32, into out: UnsafeMutableRawBufferPointer) {
        let keyBytes = withUnsafeBytes(of: key.bigEndian) { Array($0) }
        var wide: UInt64 = 0
        withUnsafeMutableBytes(of: &wide) { bytes in
            for index in 0..<8 { bytes[index] = keyBytes[index % 4] }
        }
        let count = payload.count
        var offset = 0
        while offset + 8 <= count {
            let word = payload.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ wide
            out.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            out[offset] = payload[offset] ^ keyBytes[offset % 4]
            offset += 1
        }
    }

    /// A server frame's header: what follows it in the buffer is `length` bytes of payload.
    struct Header {
        var fin: Bool
        var opcode: UInt8
        var headerLength: Int
        var length: Int
        var mask: UInt32?
    }

    /// The header at the buffer's reader index, or nil while it has not all arrived.
    static func header(in buffer: ByteBuffer) -> Header? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else { return nil }
        var headerLength = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            length = Int(extended)
            headerLength = 4
        } else if length == 127 {
            guard let extended = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            length = Int(truncatingIfNeeded: extended)
            headerLength = 10
        }
        var mask: UInt32?
        if second & 0x80 != 0 {
            guard let key = buffer.getInteger(at: buffer.readerIndex + headerLength, as: UInt32.self) else {
                return nil
            }
            mask = key
            headerLength += 4
        }
        return Header(
            fin: first & 0x80 != 0,
            opcode: first & 0x0F,
            headerLength: headerLength,
            length: length,
            mask: mask
        )
    }
}

/// xorshift64*: masking keys need no cryptographic strength here, only to vary (RFC 6455 §10.3 guards against
/// proxies that a loopback benchmark does not have).
struct MaskKeys {
    private var state: UInt64

    init() { self.state = UInt64.random(in: 1...UInt64.max) }

    mutating func next() -> UInt32 {
        self.state ^= self.state >> 12
        self.state ^= self.state << 25
        self.state ^= self.state >> 27
        return UInt32(truncatingIfNeeded: (self.state &* 2_685_821_657_736_338_717) >> 32)
    }
}
