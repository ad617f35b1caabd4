import Foundation
import GRDB
import WotsCore
import WotsStorage

extension SQLiteDatabase {
    /// Runs `updates` in a write transaction (GRDB's async overload), mapping failures to `WotsError`.
    func write<T: Sendable>(_ action: String, _ updates: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await self.pool.write(updates)
        } catch {
            throw Self.storageError(error, while: action)
        }
    }

    /// Runs `value` in a read-only transaction (GRDB's async overload), mapping failures to `WotsError`.
    func read<T: Sendable>(_ action: String, _ value: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await self.pool.read(value)
        } catch {
            throw Self.storageError(error, while: action)
        }
    }

    /// Turns whatever GRDB threw into a `WotsError` whose reason holds SQLite's message, never bound values.
    static func storageError(_ error: any Error, while action: String) -> any Error {
        switch error {
        case let error as WotsError:
            return error
        case is CancellationError:
            return error
        case let error as DatabaseError:
            let message = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
            if error.resultCode == .SQLITE_CONSTRAINT {
                if message.contains("directory_entries.nickname") {
                    return WotsError(.nicknameTaken, "nickname is taken (\(message))")
                }
                if message.contains("directory_entries.token") || message.contains("private_records.token") {
                    return WotsError(.tokenTaken, "token is taken (\(message))")
                }
                if message.contains("mailbox_messages.sender") {
                    return WotsError(.messageIDConflict, "message id was used by this sender (\(message))")
                }
            }
            return WotsError(.storageUnavailable, "SQLite failed while \(action): \(message)")
        default:
            return WotsError(.storageUnavailable, "SQLite failed while \(action): \(type(of: error))")
        }
    }
}
