import Foundation
import FuzzSupport
import WotsCore

/// `Nickname`, strict (`init(_:)`, registration) and lenient (`init(naming:)`, lookups and the wire): refuses with
/// a `WotsError`, or gives a lower-cased name of 3–32 allowed characters that parses back to itself.
enum NicknamesFuzzer {
    static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let strict = Fuzz.wotsErrorOrValue { try Nickname(text) }
        let lenient = Fuzz.wotsErrorOrValue { try Nickname(naming: text) }
        if let strict { Fuzz.require(lenient == strict, "a name the strict rule accepts reads otherwise when lenient") }
        guard let nickname = lenient else { return }
        let scalars = nickname.value.unicodeScalars
        Fuzz.require(Nickname.allowedLength.contains(scalars.count), "nickname of \(scalars.count) characters accepted")
        Fuzz.require(
            scalars.allSatisfy {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)
            },
            "nickname with a character outside a-z 0-9 _ . - accepted"
        )
        Fuzz.require(Fuzz.wotsErrorOrValue { try Nickname(naming: nickname.value) } == nickname, "not idempotent")
        let cursor = Cursor(after: nickname)
        Fuzz.require(Fuzz.wotsErrorOrValue { try Cursor(cursor.description) } == cursor, "its cursor does not parse")
        Fuzz.roundTripJSON(Nickname.self, (try? WireCoding.makeEncoder().encode(nickname)) ?? .init())
    }
}
