/// Durations and byte counts as people type them in flags and configuration files: `500ms`, `30s`, `5m`, `12h`,
/// `7d`; `512`, `64KiB`, `64MiB`, `2GiB` (also `KB`, `MB`, `GB` as powers of 1,000). A bare number of a duration is
/// seconds.
package enum HumanUnits {
    private static let durationUnits: [(String, Duration)] = [
        ("ms", .milliseconds(1)), ("s", .seconds(1)), ("m", .seconds(60)), ("h", .seconds(3_600)),
        ("d", .seconds(86_400)),
    ]
    private static let byteUnits: [(String, Int64)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1_000), ("MB", 1_000_000),
        ("GB", 1_000_000_000), ("B", 1),
    ]

    /// - Throws: `invalid_argument` naming the text and the accepted forms.
    package static func duration(_ text: String, name: String) throws -> Duration {
        let trimmed = text.trimmingWhitespace
        for (suffix, unit) in Self.durationUnits.sorted(by: { $0.0.count > $1.0.count }) where trimmed.hasSuffix(suffix)
        {
            if let value = Double(trimmed.dropLast(suffix.count)), value.isFinite, value >= 0 {
                // Whole numbers multiply exactly; Duration × Double rounds through attoseconds.
                return value == value.rounded() && value < 1e12 ? unit * Int(value) : unit * value
            }
        }
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return .seconds(seconds) }
        throw WotsError(
            .invalidArgument,
            "\(name) \"\(text.prefix(40))\" is not a duration (for example 500ms, 30s, 5m, 12h, 7d)"
        )
    }

    /// - Throws: `invalid_argument` naming the text and the accepted forms.
    package static func bytes(_ text: String, name: String) throws -> Int64 {
        let trimmed = text.trimmingWhitespace
        for (suffix, unit) in Self.byteUnits where trimmed.hasSuffix(suffix) {
            if let value = Double(trimmed.dropLast(suffix.count)), value.isFinite, value >= 0 {
                return Int64(value * Double(unit))
            }
        }
        if let value = Int64(trimmed), value >= 0 { return value }
        throw WotsError(
            .invalidArgument,
            "\(name) \"\(text.prefix(40))\" is not a size (for example 65536, 512KiB, 64MiB, 2GiB)"
        )
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
