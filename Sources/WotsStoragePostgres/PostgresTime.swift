import Foundation

/// Times are kept to the millisecond, like every Wots backend: PostgreSQL stores microseconds, and rounding both ways
/// makes a stored time read back equal to the one the caller was given.
enum PostgresTime {
    /// `date` without its sub-millisecond part, as it will be stored.
    static func stored(_ date: Date) -> Date {
        let exact = date.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        // A time that holds whole milliseconds already can come out a hair below them; it must not lose one.
        return Date(timeIntervalSince1970: (abs(exact - nearest) < 0.001 ? nearest : exact.rounded(.down)) / 1000)
    }

    /// A stored time, rounded to the millisecond it was written with.
    static func loaded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
