#if canImport(Glibc)
    import Glibc
#endif

/// Cheap field extraction from relay frames (sorted keys), searched as the socket's UTF-8 bytes: the first
/// `"id":"…"` is the envelope's (message frame) or the receipt's (accepted frame); the first `"sender":"…"` is the
/// envelope's (message frame); the frame ends with its `"type":"…"}`.
///
/// Foundation's `range(of:)` went through `NSString` and UTF-16, about a sixth of the load generator's CPU at a fixed
/// offered rate, taken from the relay it measures on the same cores.
enum FrameScan {
    enum Kind {
        case message, groupMessage, accepted, acked, error, ready, other
    }

    static func kind(of frame: UnsafeRawBufferPointer) -> Kind {
        guard let value = self.range(after: "\"type\":\"", in: frame, last: true) else { return .other }
        switch value.count {
        case 5 where Self.equals(frame, value, "ready"): return .ready
        case 5 where Self.equals(frame, value, "acked"): return .acked
        case 5 where Self.equals(frame, value, "error"): return .error
        case 7 where Self.equals(frame, value, "message"): return .message
        case 8 where Self.equals(frame, value, "accepted"): return .accepted
        case 13 where Self.equals(frame, value, "group_message"): return .groupMessage
        default: return .other
        }
    }

    static func id(in frame: UnsafeRawBufferPointer) -> Range<Int>? { Self.range(after: "\"id\":\"", in: frame) }
    static func sender(in frame: UnsafeRawBufferPointer) -> Range<Int>? {
        Self.range(after: "\"sender\":\"", in: frame)
    }

    /// The bytes between `marker` (its first occurrence, or its last) and the next `"`.
    static func range(after marker: StaticString, in bytes: UnsafeRawBufferPointer, last: Bool = false) -> Range<Int>? {
        let needle = UnsafeRawBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        guard let found = Self.offset(of: needle, in: bytes, last: last) else { return nil }
        let start = found + needle.count
        guard start <= bytes.count,
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return start..<end
    }

    /// The offset just past the first `marker` in `bytes`.
    static func end(of marker: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        let needle = UnsafeRawBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        return Self.offset(of: needle, in: bytes, last: false).map { $0 + needle.count }
    }

    /// A frame's bytes as text, for the rare frames read whole (refusal codes, group bodies).
    static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ word: StaticString) -> Bool {
        memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
    }

    private static func offset(of marker: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, last: Bool)
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
                let offset = UnsafeRawPointer(hit) - base
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

/// A message id as two 64-bit halves, parsed from its 36 lowercase characters: the key under which recipients find
/// a message's scheduled send time.
struct MessageIDKey: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    init?(_ text: UnsafeRawBufferPointer) {
        guard text.count == 36 else { return nil }
        var halves: (UInt64, UInt64) = (0, 0)
        var digits = 0
        for byte in text where byte != UInt8(ascii: "-") {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            if digits < 16 {
                halves.0 = halves.0 << 4 | UInt64(value)
            } else {
                halves.1 = halves.1 << 4 | UInt64(value)
            }
            digits += 1
        }
        guard digits == 32 else { return nil }
        (self.high, self.low) = halves
    }

    init?(_ text: String) {
        var text = text
        guard let key = text.withUTF8({ MessageIDKey(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = key
    }
}
