import PostgresNIO
import WotsCore

extension PostgresDatabase {
    /// Runs `statements` in one transaction, written to one pooled connection at once: `BEGIN`, each statement and
    /// `COMMIT` go out together and the connection runs them one after another, so the transaction costs one wait for
    /// its answers instead of one per statement. Under load those waits, not the server's work, bounded how many
    /// group commits a second the relay made. A statement that fails leaves the transaction aborted: the statements
    /// after it fail, and the `COMMIT` rolls it back.
    ///
    /// The functions these transactions call plan with sequential scans, hash joins and merge joins off (their own
    /// `SET` clauses, migration 0015): every statement in them finds its rows by key, so the plan of index lookups is
    /// the right one at any size of the tables, and the session keeps the plans it makes (migration 0014) long after
    /// the tables have grown. Until 0015 the transaction opened with a statement that turned them off, one more
    /// exchange with the server per group commit.
    ///
    /// Retried, errors mapped and health recorded as `transaction` does.
    /// - Returns: what `read` makes of each statement's rows (in order), once the transaction committed.
    func pipelinedTransaction<Result: Sendable>(
        _ operation: String,
        retryingOn retryConstraints: Set<String> = [],
        _ statements: [PostgresQuery],
        reading read: @escaping @Sendable ([[PostgresRow]]) throws -> Result
    ) async throws -> Result {
        try await self.withErrorMapping(operation) {
            try await Self.retrying(constraints: retryConstraints) {
                let rows = try await self.client.withConnection { connection in
                    try await Self.commit(Self.send(statements, on: connection, logger: self.queryLogger))
                }
                return try read(rows)
            }
        }
    }

    /// Writes the transaction's statements without waiting for any answer; the connection keeps their order.
    private static func send(
        _ statements: [PostgresQuery],
        on connection: PostgresConnection,
        logger: Logger
    ) -> [EventLoopFuture<PostgresQueryResult>] {
        (Self.opening + statements + ["COMMIT"]).map { connection.query($0, logger: logger) }
    }

    /// The statements that open every pipelined transaction, before its own.
    static let opening: [PostgresQuery] = ["BEGIN"]

    /// Waits for every answer, so the connection goes back to its pool outside any transaction, and returns the
    /// statements' rows, or the first error.
    private static func commit(_ answers: [EventLoopFuture<PostgresQueryResult>]) async throws -> [[PostgresRow]] {
        var results: [Swift.Result<PostgresQueryResult, any Error>] = []
        for answer in answers {
            do {
                results.append(.success(try await answer.get()))
            } catch {
                results.append(.failure(error))
            }
        }
        let rows = try results.map { try $0.get().rows }
        guard let ending = try results.last?.get().metadata.command, ending == "COMMIT" else {
            throw WotsError(.storageUnavailable, "the database rolled back a transaction that reported no error")
        }
        return Array(rows.dropFirst(Self.opening.count).dropLast())
    }
}
