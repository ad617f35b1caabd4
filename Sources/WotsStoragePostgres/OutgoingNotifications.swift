import Logging
import PostgresNIO
import WotsStorage

/// Notifications this process sends to the other relay processes (`NOTIFY wots_mail`), sent in order by one task
/// and never on the path of an answer.
///
/// A notification only hurries other processes along: mail is durable, and a process that misses one catches up at
/// its next resync. So sending one never holds a commit or its callers, each batch is bounded by a short deadline
/// (a query on a connection the server just dropped may never answer), a failure is logged and forgotten, and when
/// the database is too slow to keep up the oldest batches are dropped.
final class OutgoingNotifications: Sendable {
    /// Longest one batch may take before it is given up.
    static let timeout: Duration = .seconds(2)
    /// Batches waiting to be sent, at most; older ones are dropped first.
    static let backlog = 4096

    private let batches: AsyncStream<[String]>
    private let continuation: AsyncStream<[String]>.Continuation

    init() {
        (self.batches, self.continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.backlog))
    }

    /// Queues payloads for the `wots_mail` channel; returns at once.
    func send(_ payloads: [String]) {
        guard !payloads.isEmpty else { return }
        self.continuation.yield(payloads)
    }

    /// Sends queued batches until `finish()`; run it beside the connection pool.
    func run(on database: PostgresDatabase) async {
        for await payloads in self.batches {
            do {
                let pool = database.pools.current
                _ = try await Deadline.run(
                    Self.timeout,
                    "send \(payloads.count) notifications",
                    abandonedBy: pool.retired
                ) {
                    try await pool.client.query(
                        """
                        SELECT pg_notify(\(PostgresMailboxRepository.notificationChannel), payload)
                        FROM unnest(\(payloads)::text[]) AS payload
                        """,
                        logger: database.queryLogger
                    )
                }
            } catch {
                database.logger.warning(
                    "could not notify other relays; they catch up at their next resync",
                    metadata: ["notifications": "\(payloads.count)", "error": "\(String(reflecting: type(of: error)))"]
                )
            }
        }
    }

    /// Ends `run()` once what is queued has been tried.
    func finish() {
        self.continuation.finish()
    }
}
