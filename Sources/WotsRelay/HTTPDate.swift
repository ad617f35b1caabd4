#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP `Date` header value (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as Hummingbird writes it,
/// made again only when the second changes.
struct HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private var second = -1
    private var text = ""

    /// Now, to the second.
    mutating func now() -> String {
        let second = time(nil)
        if second != self.second {
            self.second = second
            self.text = Self.format(second)
        }
        return self.text
    }

    /// The IMF-fixdate of `second` seconds after 1970-01-01T00:00:00Z.
    static func format(_ second: Int) -> String {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(Self.days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(Self.months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
