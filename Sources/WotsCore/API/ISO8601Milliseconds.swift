/// `2026-11-23T10:00:00.061Z` from whole milliseconds since 1970, by arithmetic on the proleptic Gregorian calendar
/// (H. Hinnant's days-to-civil algorithm) rather than through Foundation's calendar, which cost several microseconds
/// a date on the relay's hot path. Years 1970–9999 only.
enum ISO8601Milliseconds {
    /// Milliseconds of 10000-01-01T00:00:00Z: the first instant that no longer has a four-digit year.
    static let end: Int64 = 253_402_300_800_000

    /// Nil outside 1970–9999.
    static func format(_ milliseconds: Int64) -> String? {
        var text: [UInt8] = []
        text.reserveCapacity(24)
        guard Self.append(milliseconds, to: &text) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the 24 characters to `text`; false, appending nothing, outside 1970–9999.
    static func append(_ milliseconds: Int64, to text: inout [UInt8]) -> Bool {
        guard milliseconds >= 0, milliseconds < Self.end else { return false }
        let days = milliseconds / 86_400_000
        let inDay = milliseconds % 86_400_000
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        Self.append(year, digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        Self.append(month, digits: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        Self.append(day, digits: 2, to: &text)
        text.append(UInt8(ascii: "T"))
        Self.append(inDay / 3_600_000, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        Self.append(inDay / 60_000 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        Self.append(inDay / 1_000 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: "."))
        Self.append(inDay % 1_000, digits: 3, to: &text)
        text.append(UInt8(ascii: "Z"))
        return true
    }

    private static func append(_ value: Int64, digits: Int, to text: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
