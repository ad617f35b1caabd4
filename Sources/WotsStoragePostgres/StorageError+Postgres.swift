import PostgresNIO
import WotsCore
import WotsStorage

extension WotsError {
    /// Turns an error from PostgresNIO into a `WotsError` that names the operation and, for a server error, its
    /// SQLSTATE, never a query, a bound value or the server's message (which can quote values).
    /// - Parameter uniqueViolations: the error to give for a unique violation (23505) of each constraint.
    static func mapping(
        _ error: any Error,
        operation: String,
        uniqueViolations: [String: WotsError] = [:]
    ) -> any Error {
        let error = Self.transactionCause(of: error)
        switch error {
        case let error as WotsError:
            return error
        case let error as CancellationError:
            return error
        case let error as PSQLError:
            if error.code == .server {
                let state = error.serverInfo?[.sqlState] ?? "unknown"
                if state == "23505", let constraint = error.serverInfo?[.constraintName],
                    let mapped = uniqueViolations[constraint]
                {
                    return mapped
                }
                if state == "53100" {
                    return WotsError(.storageFull, "the database server's disk is full: could not \(operation)")
                }
                return WotsError(.storageUnavailable, "the database refused to \(operation) (SQLSTATE \(state))")
            }
            return WotsError(.storageUnavailable, "the database is unavailable: could not \(operation) (\(error.code))")
        case is PostgresDecodingError:
            return WotsError(.storageCorrupted, "stored data could not be decoded while trying to \(operation)")
        default:
            return WotsError(.storageUnavailable, "could not \(operation) (\(type(of: error)))")
        }
    }

    /// The error that made a transaction fail: the closure's, else BEGIN's, COMMIT's or ROLLBACK's.
    static func transactionCause(of error: any Error) -> any Error {
        guard let transactionError = error as? PostgresTransactionError else { return error }
        return transactionError.closureError ?? transactionError.beginError ?? transactionError.commitError
            ?? transactionError.rollbackError ?? error
    }

    /// Whether running the transaction again may succeed: a deadlock (40P01), a serialization failure (40001), or a
    /// unique violation of one of `constraints`.
    static func isRetryable(_ error: any Error, constraints: Set<String>) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else {
            return false
        }
        if state == "40P01" || state == "40001" { return true }
        if state == "23505", let constraint = error.serverInfo?[.constraintName] {
            return constraints.contains(constraint)
        }
        return false
    }
}
