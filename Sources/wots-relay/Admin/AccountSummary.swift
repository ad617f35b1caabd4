import Foundation
import WotsCore

/// One account as `admin accounts` prints it (`--json`: this object).
struct AccountSummary: Encodable, Sendable {
    var nickname: String
    var token: String
    var fingerprint: String
    var registeredAt: Date
    var suspendedAt: Date?
    /// Messages waiting for the account; only `accounts show` reads it.
    var queuedMessages: Int?

    init(_ entry: DirectoryEntry, suspendedAt: Date?, queuedMessages: Int? = nil) {
        self.nickname = entry.nickname.value
        self.token = entry.token.description
        self.fingerprint = entry.fingerprint.hex
        self.registeredAt = entry.registeredAt
        self.suspendedAt = suspendedAt
        self.queuedMessages = queuedMessages
    }

    /// One line: nickname, token, registration date and, when suspended, since when.
    var line: String {
        let suspended = self.suspendedAt.map { "  suspended since \($0.formatted(.iso8601))" } ?? ""
        return "\(self.nickname)  \(self.token)  registered \(self.registeredAt.formatted(.iso8601))\(suspended)"
    }

    /// Several lines, for `accounts show`.
    var details: String {
        var lines = [
            "nickname:     \(self.nickname)",
            "token:        \(self.token)",
            "fingerprint:  \(self.fingerprint)",
            "registered:   \(self.registeredAt.formatted(.iso8601))",
            "status:       \(self.suspendedAt.map { "suspended since \($0.formatted(.iso8601))" } ?? "active")",
        ]
        if let queuedMessages { lines.append("queued:       \(queuedMessages) messages") }
        return lines.joined(separator: "\n")
    }
}
