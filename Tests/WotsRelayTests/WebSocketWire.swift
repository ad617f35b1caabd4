/// RFC 6455 frames built and read byte by byte, for tests that must send what no WebSocket library sends.
enum WebSocketWire {
    /// A client frame; masked (as RFC 6455 requires of clients) unless told otherwise.
    static func frame(opcode: UInt8, payload: [UInt8], isFinal: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(isFinal ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    static func text(_ text: String, masked: Bool = true) -> [UInt8] {
        self.frame(opcode: 0x1, payload: Array(text.utf8), masked: masked)
    }

    /// The upgrade request for `/v1/stream`, authenticated by `session`.
    static func upgradeRequest(port: Int, session: String, path: String = "/v1/stream") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Authorization: Bearer \(session)\r\n\r\n"
    }

    /// A server frame read from the wire.
    struct ServerFrame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]

        var closeCode: UInt16? {
            guard self.opcode == 0x8, self.payload.count >= 2 else { return nil }
            return UInt16(self.payload[0]) << 8 | UInt16(self.payload[1])
        }

        var text: String { String(decoding: self.payload, as: UTF8.self) }
    }

    /// The whole server frames in `bytes`, after the HTTP response header that precedes them.
    static func serverFrames(in bytes: [UInt8]) -> [ServerFrame] {
        guard let headerEnd = self.headerEnd(in: bytes) else { return [] }
        var frames: [ServerFrame] = []
        var index = headerEnd
        while index + 2 <= bytes.count {
            let opcode = bytes[index] & 0x0F
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { break }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127 {
                guard start + 8 <= bytes.count else { break }
                length = bytes[start..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }
                start += 8
            }
            guard start + length <= bytes.count else { break }
            frames.append(ServerFrame(opcode: opcode, payload: Array(bytes[start..<(start + length)])))
            index = start + length
        }
        return frames
    }

    /// The offset just past the first `\r\n\r\n`.
    static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return nil
    }
}
