/// Reads the headers of client WebSocket frames (RFC 6455 §5.2) from the raw byte stream, skipping payloads, so the
/// edge can refuse what the frame decoder lets through: unmasked client frames and fragmented messages left
/// unfinished.
struct WebSocketFrameInspector {
    /// What one client frame's header says.
    struct FrameHeader: Equatable {
        var isFinal: Bool
        var opcode: UInt8
        var isMasked: Bool
        /// Where the frame starts in the bytes given to `inspect`, for a frame that starts there.
        var offset: Int

        var isControl: Bool { self.opcode & 0x8 != 0 }
        var isContinuation: Bool { self.opcode == 0 }
    }

    private var header: [UInt8] = []
    private var headerStart = 0
    private var payloadLeft: UInt64 = 0

    /// The headers of the frames whose headers complete in `bytes`, in order. A header split across reads is reported
    /// with the read that completes it, at offset 0.
    mutating func inspect(_ bytes: some Collection<UInt8>) -> [FrameHeader] {
        var headers: [FrameHeader] = []
        var offset = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if self.payloadLeft > 0 {
                let skip = Int(min(self.payloadLeft, UInt64(bytes.distance(from: index, to: bytes.endIndex))))
                index = bytes.index(index, offsetBy: skip)
                offset += skip
                self.payloadLeft -= UInt64(skip)
                continue
            }
            if self.header.isEmpty { self.headerStart = offset }
            self.header.append(bytes[index])
            index = bytes.index(after: index)
            offset += 1
            if let (parsed, payloadLength) = Self.parse(self.header, offset: self.headerStart) {
                headers.append(parsed)
                self.header.removeAll(keepingCapacity: true)
                self.payloadLeft = payloadLength
            }
        }
        self.headerStart = 0
        return headers
    }

    /// The header and payload length once `bytes` hold a whole header, else nil.
    private static func parse(_ bytes: [UInt8], offset: Int) -> (FrameHeader, UInt64)? {
        guard bytes.count >= 2 else { return nil }
        let isMasked = bytes[1] & 0x80 != 0
        let shortLength = bytes[1] & 0x7F
        let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        let headerLength = 2 + lengthBytes + (isMasked ? 4 : 0)
        guard bytes.count == headerLength else { return nil }
        var length = UInt64(shortLength)
        if lengthBytes > 0 {
            length = bytes[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let header = FrameHeader(
            isFinal: bytes[0] & 0x80 != 0,
            opcode: bytes[0] & 0x0F,
            isMasked: isMasked,
            offset: offset
        )
        return (header, length)
    }
}
