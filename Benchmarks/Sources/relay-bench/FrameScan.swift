#if canImport(Glibc)
    import Glibc
#endif

/// Cheap field extraction from relay frames (sorted keys): the first `"id":"…"` is the envelope's (message frame)
/// or the receipt's (accepted frame); the first `"sender":"…"` is the envelope's (message frame).
///
/// Frames are searched as UTF-8 bytes: Foundation's `range(of:)` went through `NSString` and UTF-16, about a sixth
/// of the load generator's CPU at a fixed offered rate, taken from the relay it measures on the same cores.
enum FrameScan {
    /// The frame's type: the last key, so the frame ends with `"type":"…"}`.
    static func type(of text: String) -> String {
        Self.value(of: "\"type\":\"", in: text, last: true) ?? ""
    }
    static func id(in text: String) -> String? { Self.value(of: "\"id\":\"", in: text, last: false) }
    static func sender(in text: String) -> String? { Self.value(of: "\"sender\":\"", in: text, last: false) }

    /// The text between `marker` (its first occurrence, or its last) and the next `"`.
    static func value(of marker: String, in text: String, last: Bool) -> String? {
        var text = text
        var marker = marker
        return text.withUTF8 { bytes in
            marker.withUTF8 { marker in
                guard let start = Self.offset(of: marker, in: bytes, last: last).map({ $0 + marker.count }),
                    let length = bytes[start...].firstIndex(of: UInt8(ascii: "\"")).map({ $0 - start })
                else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(start + length)]), as: UTF8.self)
            }
        }
    }

    private static func offset(of marker: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>, last: Bool)
        -> Int?
    {
        guard let base = bytes.baseAddress, let needle = marker.baseAddress, !marker.isEmpty,
            marker.count <= bytes.count
        else {
            return nil
        }
        guard last else {
            var start = 0
            while start <= bytes.count - marker.count {
                let span = bytes.count - marker.count - start + 1
                guard let hit = memchr(base + start, Int32(marker[0]), span) else { return nil }
                let offset = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                if memcmp(base + offset, needle, marker.count) == 0 { return offset }
                start = offset + 1
            }
            return nil
        }
        var start = bytes.count - marker.count
        while start >= 0 {
            if memcmp(base + start, needle, marker.count) == 0 { return start }
            start -= 1
        }
        return nil
    }
}
