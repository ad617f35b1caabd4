import Foundation

/// Cheap field extraction from relay frames (sorted keys): the first `"id":"…"` is the envelope's (message frame)
/// or the receipt's (accepted frame); the first `"sender":"…"` is the envelope's (message frame).
enum FrameScan {
    /// The frame's type: the last key, so the frame ends with `"type":"…"}`.
    static func type(of text: String) -> String {
        for kind in ["message", "accepted", "acked", "error", "ready"]
        where text.hasSuffix("\"type\":\"\(kind)\"}") {
            return kind
        }
        return Self.value(of: "\"type\":\"", in: text, last: true).map(String.init) ?? ""
    }
    static func id(in text: String) -> Substring? { Self.value(of: "\"id\":\"", in: text, last: false) }
    static func sender(in text: String) -> Substring? { Self.value(of: "\"sender\":\"", in: text, last: false) }

    static func value(of marker: String, in text: String, last: Bool) -> Substring? {
        guard let range = last ? text.range(of: marker, options: .backwards) : text.range(of: marker) else {
            return nil
        }
        guard let end = text[range.upperBound...].firstIndex(of: "\"") else { return nil }
        return text[range.upperBound..<end]
    }
}
