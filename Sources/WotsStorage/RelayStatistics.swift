public import Foundation

/// What the operator's `admin stats` shows: accounts, waiting mail and recent registrations.
public struct RelayStatistics: Sendable, Hashable {
    /// Registrations on one UTC day.
    public struct Day: Sendable, Hashable {
        /// Midnight UTC that starts the day.
        public var start: Date
        public var registrations: Int

        public init(start: Date, registrations: Int) {
            self.start = start
            self.registrations = registrations
        }
    }

    /// Live accounts, suspended ones included.
    public var accounts: Int
    public var suspendedAccounts: Int
    /// Messages waiting in every mailbox together.
    public var queuedMessages: Int
    /// Their stored envelopes' bytes.
    public var queuedBytes: Int
    /// When the oldest waiting message arrived; nil when none waits.
    public var oldestQueuedAt: Date?
    /// Registrations per UTC day, oldest first, the last day being today's; days without any are listed with 0.
    /// Deleted accounts count on the day they registered.
    public var registrationsPerDay: [Day]

    public init(
        accounts: Int,
        suspendedAccounts: Int,
        queuedMessages: Int,
        queuedBytes: Int,
        oldestQueuedAt: Date?,
        registrationsPerDay: [Day]
    ) {
        self.accounts = accounts
        self.suspendedAccounts = suspendedAccounts
        self.queuedMessages = queuedMessages
        self.queuedBytes = queuedBytes
        self.oldestQueuedAt = oldestQueuedAt
        self.registrationsPerDay = registrationsPerDay
    }

    /// The first instant of the window of `days` UTC days ending with the day of `now`.
    public static func windowStart(days: Int, endingAt now: Date) -> Date {
        let dayLength: TimeInterval = 86_400
        let today = (now.timeIntervalSince1970 / dayLength).rounded(.down) * dayLength
        return Date(timeIntervalSince1970: today - Double(days - 1) * dayLength)
    }

    /// Counts `registrations` (registration times) per UTC day over the `days` days ending with the day of `now`.
    public static func perDay(_ registrations: [Date], days: Int, endingAt now: Date) -> [Day] {
        let start = Self.windowStart(days: days, endingAt: now)
        var counts = [Int](repeating: 0, count: days)
        for date in registrations {
            let index = Int((date.timeIntervalSince(start) / 86_400).rounded(.down))
            if counts.indices.contains(index) { counts[index] += 1 }
        }
        return counts.enumerated().map { index, count in
            Day(start: start.addingTimeInterval(Double(index) * 86_400), registrations: count)
        }
    }
}
