import ArgumentParser
import Foundation
import WotsCore
import WotsRelay
import WotsStorage

/// `wots-relay admin stats`
struct AdminStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Accounts, waiting messages and bytes, the oldest waiting message, registrations per day (30 days)."
    )

    static let days = 30

    @OptionGroup var options: AdminOptions

    /// The `--json` document.
    struct Report: Encodable {
        struct Day: Encodable {
            var date: String
            var registrations: Int
        }

        var accounts: Int
        var suspendedAccounts: Int
        var queuedMessages: Int
        var queuedBytes: Int
        var oldestQueuedAt: Date?
        var registrationsPerDay: [Day]
    }

    func run() async throws {
        let statistics = try await self.options.withDatabase { opened in
            try await opened.storage.administration.statistics(now: Date(), days: Self.days)
        }
        let report = Report(
            accounts: statistics.accounts,
            suspendedAccounts: statistics.suspendedAccounts,
            queuedMessages: statistics.queuedMessages,
            queuedBytes: statistics.queuedBytes,
            oldestQueuedAt: statistics.oldestQueuedAt,
            registrationsPerDay: statistics.registrationsPerDay.map {
                Report.Day(date: $0.start.formatted(.iso8601.year().month().day()), registrations: $0.registrations)
            }
        )
        try self.options.print(report) { Self.text(report) }
    }

    private static func text(_ report: Report) -> String {
        var lines = [
            "accounts:        \(report.accounts) (\(report.suspendedAccounts) suspended)",
            "queued messages: \(report.queuedMessages) (\(report.queuedBytes) bytes)",
            "oldest queued:   \(report.oldestQueuedAt.map { $0.formatted(.iso8601) } ?? "none")",
            "registrations per day (last \(Self.days) days, UTC):",
        ]
        lines += report.registrationsPerDay.map { "  \($0.date)  \($0.registrations)" }
        return lines.joined(separator: "\n")
    }
}
