import ArgumentParser
import Foundation
import Logging

/// `storage-bench --backend sqlite|postgres`: fills a directory, times its first and last pages, then measures
/// mailbox appends (single and batched) against raw inserts of equivalent rows; prints one table.
struct StorageBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage-bench",
        abstract: "Directory paging and mailbox append throughput of one storage backend, against its raw driver."
    )

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case sqlite, postgres
    }

    @Option(help: "The backend to measure: sqlite or postgres.")
    var backend: Backend

    @Option(help: "PostgreSQL server URL (a database on it is created and dropped). Default: $WOTS_TEST_POSTGRES_URL.")
    var postgresURL: String?

    @Option(
        help: "Folder for the SQLite files (on a real disk: fsync must cost what it costs). Default: the temp folder."
    )
    var workDirectory: String?

    @Option(help: "Directory sizes to measure, ascending, comma-separated; the directory grows from one to the next.")
    var entries: String = "100000"

    @Option(help: "Timed page fetches per page (first and last alternate), after a few warm-up fetches.")
    var pageRuns: Int = 50

    @Option(help: "Seconds per append measurement.")
    var seconds: Double = 2

    @Option(help: "Rounds of (Wots, raw) append measurements; the table shows medians.")
    var rounds: Int = 2

    @Option(help: "Concurrent tasks making single appends.")
    var concurrency: Int = 32

    @Option(help: "Envelopes per batch.")
    var batchSize: Int = 100

    @Option(help: "Concurrent tasks making batched appends.")
    var batchConcurrency: Int = 4

    func validate() throws {
        guard !self.sizes.isEmpty, self.sizes == self.sizes.sorted(), self.sizes.allSatisfy({ $0 > 200 }) else {
            throw ValidationError("--entries must list ascending sizes above 200, e.g. 100000,1000000")
        }
        guard self.pageRuns > 0, self.seconds > 0, self.rounds > 0, self.concurrency > 0, self.batchConcurrency > 0,
            (1...1_000).contains(self.batchSize)
        else {
            throw ValidationError(
                "--page-runs, --seconds, --rounds, the concurrencies must be positive; --batch-size 1–1000"
            )
        }
        if self.backend == .postgres, self.resolvedPostgresURL == nil {
            throw ValidationError("--backend postgres needs --postgres-url or WOTS_TEST_POSTGRES_URL")
        }
    }

    var sizes: [Int] {
        self.entries.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    var resolvedPostgresURL: String? {
        self.postgresURL ?? ProcessInfo.processInfo.environment["WOTS_TEST_POSTGRES_URL"]
    }

    func run() async throws {
        var logger = Logger(label: "wots.storage-bench")
        // PostgresNIO warns when a query waits for `run()` to begin, which the start-up races; errors still show.
        logger.logLevel = .error
        let settings = Settings(
            sizes: self.sizes,
            pageRuns: self.pageRuns,
            seconds: self.seconds,
            rounds: self.rounds,
            concurrency: self.concurrency,
            batchSize: self.batchSize,
            batchConcurrency: self.batchConcurrency
        )
        switch self.backend {
        case .sqlite:
            let folder = URL(fileURLWithPath: self.workDirectory ?? NSTemporaryDirectory())
                .appendingPathComponent("wots-storage-bench-\(ProcessInfo.processInfo.processIdentifier)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let harness = try await SQLiteHarness(folder: folder.path, logger: logger)
            defer { harness.close() }
            let report = try await Runner(harness: harness, settings: settings).run()
            report.print(title: harness.title)
        case .postgres:
            guard let url = self.resolvedPostgresURL else { return }
            try await PostgresHarness.with(serverURL: url, logger: logger) { harness in
                let report = try await Runner(harness: harness, settings: settings).run()
                report.print(title: harness.title)
            }
        }
    }
}

/// What the runner needs to know from the command line.
struct Settings: Sendable {
    var sizes: [Int]
    var pageRuns: Int
    var seconds: Double
    var rounds: Int
    var concurrency: Int
    var batchSize: Int
    var batchConcurrency: Int
}
