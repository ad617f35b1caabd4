import FuzzSupport
import WotsCore

/// `Cursor`, from the `after` query parameter of `GET /v1/directory` (the relay passes the decoded parameter to
/// `Cursor(_:)`): refuses with a `WotsError`, or names a nickname whose cursor parses back to it.
enum CursorsFuzzer {
    static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let cursor = Fuzz.wotsErrorOrValue({ try Cursor(text) }) else { return }
        let again = Fuzz.wotsErrorOrValue { try Cursor(cursor.description) }
        Fuzz.require(again == cursor, "a cursor's own spelling does not parse back to it")
        Fuzz.require(cursor.description.count <= 64, "a cursor's own spelling is longer than Cursor accepts")
    }
}
