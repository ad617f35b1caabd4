import Foundation
import WotsCore
import WotsStorage

/// Runs the directory and mailbox measurements against one harness and collects the table.
struct Runner: Sendable {
    let harness: any Harness
    let settings: Settings

    /// Large enough never to refuse an append during a measurement.
    static let mailboxCapacity = 1_000_000_000
    /// Recipients per sending task for the Wots appends.
    static let recipientsPerTask = 8

    func run() async throws -> Report {
        var report = Report()
        try await self.measureDirectory(into: &report)
        try await self.measureMailboxes(into: &report)
        return report
    }

    // MARK: Directory

    private func measureDirectory(into report: inout Report) async throws {
        let directory = self.harness.directory
        let limit = PageLimit.max
        var filled = 0
        for size in self.settings.sizes {
            progress("filling the directory to \(size.formatted()) entries…")
            let fillStart = Measure.clock.now
            try await self.harness.fillDirectory(filled..<size)
            let fillSeconds = Measure.seconds(Measure.clock.now - fillStart)
            filled = size
            let count = try await directory.count()
            guard count == size else { throw BenchError("the directory holds \(count) live entries, not \(size)") }

            // The last page starts after the last entry of the page before it.
            let beforeLast = try await self.harness.nickname(atOffset: size - limit.value - 1)
            let lastCursor = Cursor(after: try Nickname(beforeLast))
            let firstPage = try await directory.page(limit: limit, after: nil)
            let lastPage = try await directory.page(limit: limit, after: lastCursor)
            guard firstPage.entries.count == limit.value, firstPage.next != nil,
                lastPage.entries.count == limit.value, lastPage.next == nil
            else {
                throw BenchError(
                    "unexpected pages: first \(firstPage.entries.count) entries, last \(lastPage.entries.count) "
                        + "entries (next \(lastPage.next == nil ? "nil" : "set"))"
                )
            }
            progress("timing \(self.settings.pageRuns) first and \(self.settings.pageRuns) last pages…")
            for _ in 0..<5 {
                _ = try await directory.page(limit: limit, after: nil)
                _ = try await directory.page(limit: limit, after: lastCursor)
            }
            var first: [Double] = []
            var last: [Double] = []
            for run in 0..<self.settings.pageRuns {
                // Alternate which goes first, so neither always finds the caches the other warmed.
                for isFirst in run.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let start = Measure.clock.now
                    _ = try await directory.page(limit: limit, after: isFirst ? nil : lastCursor)
                    let milliseconds = Measure.seconds(Measure.clock.now - start) * 1000
                    if isFirst { first.append(milliseconds) } else { last.append(milliseconds) }
                }
            }
            let firstMedian = Measure.median(first)
            let lastMedian = Measure.median(last)
            let ratio = lastMedian / firstMedian
            report.rows.append(
                Report.Row(
                    measure: "directory bulk fill to \(size.formatted()) (raw driver)",
                    wots: String(format: "%.1f s", fillSeconds)
                )
            )
            report.rows.append(
                Report.Row(
                    measure: "page of 100 at \(size.formatted()): first, median",
                    wots: String(format: "%.3f ms", firstMedian)
                )
            )
            report.rows.append(
                Report.Row(
                    measure: "page of 100 at \(size.formatted()): last, median",
                    wots: String(format: "%.3f ms", lastMedian),
                    reference: String(format: "first %.3f ms", firstMedian),
                    ratio: ratio,
                    goal: "≤ 1.50",
                    met: ratio <= 1.5
                )
            )
            report.notes.append(
                String(
                    format: "pages at %@: first p10–p90 %.3f–%.3f ms, last p10–p90 %.3f–%.3f ms (%d runs each)",
                    size.formatted(),
                    percentile(first, 0.1),
                    percentile(first, 0.9),
                    percentile(last, 0.1),
                    percentile(last, 0.9),
                    self.settings.pageRuns
                )
            )
        }
    }

    // MARK: Mailboxes

    private func measureMailboxes(into report: inout Report) async throws {
        let settings = self.settings
        let mailboxes = self.harness.mailboxes
        let harness = self.harness
        let capacity = Self.mailboxCapacity
        var single: [(wots: Double, raw: Double)] = []
        var batched: [(wots: Double, raw: Double)] = []
        for round in 1...settings.rounds {
            progress(
                "round \(round)/\(settings.rounds): single appends from \(settings.concurrency) tasks, Wots then raw…"
            )
            let mails = (0..<settings.concurrency).map { _ in Fixture.Mail(recipients: Self.recipientsPerTask) }
            let wotsSingle = try await Measure.rate(
                seconds: settings.seconds,
                tasks: settings.concurrency,
                itemsPerCall: 1
            ) { task, call in
                _ = try await mailboxes.append(
                    mails[task].envelope(call),
                    receivedAt: Date(),
                    mailboxCapacity: capacity
                )
            }
            let raws = (0..<settings.concurrency).map { _ in Fixture.RawMail() }
            let rawSingle = try await Measure.rate(
                seconds: settings.seconds,
                tasks: settings.concurrency,
                itemsPerCall: 1
            ) { task, call in
                try await harness.rawInsert(raws[task].row(call))
            }
            single.append((wotsSingle, rawSingle))

            progress(
                "round \(round)/\(settings.rounds): batches of \(settings.batchSize) from \(settings.batchConcurrency) "
                    + "tasks, Wots then raw…"
            )
            let batchSize = settings.batchSize
            let batchMails = (0..<settings.batchConcurrency).map { _ in
                Fixture.Mail(recipients: Self.recipientsPerTask)
            }
            let wotsBatch = try await Measure.rate(
                seconds: settings.seconds,
                tasks: settings.batchConcurrency,
                itemsPerCall: batchSize
            ) { task, call in
                let envelopes = (0..<batchSize).map { batchMails[task].envelope(call * batchSize + $0) }
                for outcome in try await mailboxes.append(
                    batch: envelopes,
                    receivedAt: Date(),
                    mailboxCapacity: capacity
                ) {
                    _ = try outcome.get()
                }
            }
            let batchRaws = (0..<settings.batchConcurrency).map { _ in Fixture.RawMail() }
            let rawBatch = try await Measure.rate(
                seconds: settings.seconds,
                tasks: settings.batchConcurrency,
                itemsPerCall: batchSize
            ) { task, call in
                try await harness.rawInsert(batch: (0..<batchSize).map { batchRaws[task].row(call * batchSize + $0) })
            }
            batched.append((wotsBatch, rawBatch))
        }

        let singleWots = Measure.median(single.map(\.wots))
        let singleRaw = Measure.median(single.map(\.raw))
        let batchWots = Measure.median(batched.map(\.wots))
        let batchRaw = Measure.median(batched.map(\.raw))
        if let postgres = harness as? PostgresHarness {
            progress("single raw inserts with pg_notify from \(settings.concurrency) tasks…")
            let raws = (0..<settings.concurrency).map { _ in Fixture.RawMail() }
            let notifying = try await Measure.rate(
                seconds: settings.seconds,
                tasks: settings.concurrency,
                itemsPerCall: 1
            ) { task, call in
                try await postgres.rawInsertNotifying(raws[task].row(call))
            }
            report.notes.append(
                "raw single insert + pg_notify in one transaction, \(settings.concurrency) tasks: "
                    + "\(Int(notifying.rounded()).formatted())/s (Wots appends notify; PostgreSQL serialises such commits)"
            )
        }
        report.rows.append(
            Report.Row(
                measure: "append, \(settings.concurrency) tasks, 1 per call",
                wots: "\(Int(singleWots.rounded()).formatted()) msg/s",
                reference: "raw autocommit \(Int(singleRaw.rounded()).formatted())/s",
                ratio: Measure.median(single.map { $0.wots / $0.raw })
            )
        )
        report.rows.append(
            Report.Row(
                measure: "append(batch:) of \(settings.batchSize), \(settings.batchConcurrency) tasks",
                wots: "\(Int(batchWots.rounded()).formatted()) msg/s",
                reference: "raw \(settings.batchSize)-row tx \(Int(batchRaw.rounded()).formatted())/s",
                ratio: Measure.median(batched.map { $0.wots / $0.raw })
            )
        )
        func perRound(_ pairs: [(wots: Double, raw: Double)]) -> String {
            pairs.map { "\(Int($0.wots.rounded()).formatted()) vs \(Int($0.raw.rounded()).formatted())" }
                .joined(separator: "; ")
        }
        report.notes.append("per round, Wots vs raw msg/s: single \(perRound(single)); batched \(perRound(batched))")
    }
}

private func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

/// Progress goes to standard error, so standard output holds the table only.
func progress(_ message: String) {
    FileHandle.standardError.write(Data(("storage-bench: " + message + "\n").utf8))
}

/// A measurement that could not be made.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
