public import Foundation
public import WotsCore

extension Envelope {
    /// When a mailbox drops this envelope undelivered because its sender asked for it to vanish: the v2 header's
    /// `expiresAt` in milliseconds since the epoch; nil when it never expires (`expiresAt` 0, and every v1 envelope).
    public var mailboxExpiryMilliseconds: Int64? {
        let expiresAt = self.header.expiresAtMilliseconds
        guard expiresAt != 0, let milliseconds = Int64(exactly: expiresAt) else { return nil }
        return milliseconds
    }

    /// Whether the envelope's `expiresAt` has come by `now` (an envelope that expires at exactly `now` has).
    public func hasExpired(at now: Date) -> Bool { MailboxExpiry.hasCome(self.mailboxExpiryMilliseconds, by: now) }
}

/// When a mailbox's `expiresAt` counts as come, for 1:1 and group messages alike.
enum MailboxExpiry {
    /// Whether `expiry` (milliseconds since the epoch; nil: never) has come by `now`.
    static func hasCome(_ expiry: Int64?, by now: Date) -> Bool {
        guard let expiry else { return false }
        let exact = now.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        // Whole milliseconds, as the database backends compare them; a time read back from them comes a hair off.
        return Double(expiry) <= (abs(exact - nearest) < 0.001 ? nearest : exact.rounded(.down))
    }
}
