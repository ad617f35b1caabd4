public import Foundation

/// The JSON coders both ends of the relay API use: ISO 8601 dates with milliseconds, sorted keys.
public enum WireCoding {
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.format(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `2026-11-23T10:00:00.061Z`: whole milliseconds, the sub-millisecond part dropped as the stores drop it, but a
    /// time a hair below a whole millisecond (what parsing `.061` gives back) counts as that millisecond, so a date
    /// read from the wire is written back unchanged. Foundation's ISO 8601 style truncates instead: it wrote `.061`
    /// back as `.060`, and a date lost a millisecond each time it was decoded and encoded again.
    static func format(_ date: Date) -> String {
        let milliseconds = Self.milliseconds(of: date)
        if let text = ISO8601Milliseconds.format(Int64(exactly: milliseconds) ?? -1) { return text }
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
        return whole.dropLast() + "." + String(1000 + fraction).dropFirst() + "Z"
    }

    /// The whole milliseconds `format` writes for `date`.
    ///
    /// "A hair" is 1 µs near 1970 and a few units in the last place of the value further away: a `Date` is a `Double`
    /// of seconds, so in the year 2521 a parsed `.143` lands some 3 µs from 143 ms, and was written back as `.142`.
    static func milliseconds(of date: Date) -> Double {
        let exact = date.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        let hair = max(0.001, 8 * exact.ulp)
        return abs(exact - nearest) < hair ? nearest : exact.rounded(.down)
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            if let date = (try? withFraction.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) {
                return date
            }
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(text.prefix(40))\" is not an ISO 8601 date"
            )
        }
        return decoder
    }
}
