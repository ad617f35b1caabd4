import Foundation
import GRDB
import WotsCore
import WotsStorage

extension SQLiteDatabase {
    /// Runs `updates` in a write transaction (GRDB's async overload) within the operation deadline, records the
    /// outcome in `health`, and maps failures to `WotsError`.
    func write<T: Sendable>(_ action: String, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await self.access(action) { try await self.pool.write(updates) }
    }

    /// Runs `value` in a read-only transaction (GRDB's async overload), as `write` does.
    func read<T: Sendable>(_ action: String, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await self.access(action) { try await self.pool.read(value) }
    }

    /// Runs `value` on the read-only lookup connection on the calling thread, for a lookup of a few indexed rows that
    /// costs less than handing it to a reader queue and back: it waits only for other lookups, each a few
    /// microseconds. No transaction is opened (each costs two more statements), so `value` must read with one
    /// statement whatever must be read at one moment. Records the outcome in `health` and maps failures as `read`
    /// does.
    func readNow<T>(_ action: String, _ value: (Database) throws -> T) throws -> T {
        do {
            let result = try self.lookups.inDatabase(value)
            self.health.record(.success(()))
            return result
        } catch {
            let mapped = Self.storageError(error, while: action)
            self.health.record(.failure(mapped))
            throw mapped
        }
    }

    /// Runs `updates` in a write transaction on the calling thread, which must not be one of the task pool's: it
    /// waits for SQLite's one writer. Records the outcome in `health` and maps failures as `write` does.
    func writeNow<T>(_ action: String, _ updates: (Database) throws -> T) throws -> T {
        do {
            let result = try self.pool.write(updates)
            self.health.record(.success(()))
            return result
        } catch {
            let mapped = Self.storageError(error, while: action)
            self.health.record(.failure(mapped))
            throw mapped
        }
    }

    private func access<T: Sendable>(_ action: String, _ body: @escaping @Sendable () async throws -> T) async throws
        -> T
    {
        do {
            let value = try await Deadline.run(self.configuration.operationTimeout, action, body)
            self.health.record(.success(()))
            return value
        } catch {
            let mapped = Self.storageError(error, while: action)
            self.health.record(.failure(mapped))
            throw mapped
        }
    }

    /// Whether `requireFreeSpace` passes without reading the database: false near the reserve, where only it can
    /// tell (it counts SQLite's free pages).
    func isClearOfReserve() -> Bool {
        guard let free = self.fileSystemFreeBytes() else { return true }
        return free >= self.configuration.minimumFreeSpace
    }

    /// Refuses with `storage_full` when the file system's free space plus SQLite's free pages is below the reserve.
    /// Within 32 MiB of the reserve the file system is read on every check, so concurrent writes cannot together eat
    /// far into it.
    /// - Parameter fresh: read the file system now rather than a reading up to 250 ms old.
    func requireFreeSpace(fresh: Bool = false) async throws {
        let reserve = self.configuration.minimumFreeSpace
        guard let free = self.fileSystemFreeBytes(fresh: fresh), free < reserve else { return }
        let reusable = try await self.read("count free pages") { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            return pages * pageSize
        }
        guard free + reusable < reserve else { return }
        let error = WotsError(
            .storageFull,
            "the relay has \(Self.mebibytes(free + reusable)) free, below its reserve of \(Self.mebibytes(reserve)); "
                + "new mail waits until acknowledgements or an operator free space"
        )
        self.health.record(.failure(error))
        throw error
    }

    /// The file system's free bytes: a reading up to 250 ms old, unless `fresh` or the last reading was within 32 MiB
    /// of the reserve.
    private func fileSystemFreeBytes(fresh: Bool = false) -> Int64? {
        self.space.freeBytes(fresh: fresh, freshBelow: self.configuration.minimumFreeSpace + (32 << 20))
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// Turns whatever GRDB threw into a `WotsError` naming the action and SQLite's result code, never SQLite's own
    /// message (it can quote values) nor bound values.
    static func storageError(_ error: any Error, while action: String) -> any Error {
        switch error {
        case let error as WotsError:
            return error
        case is CancellationError:
            return error
        case let error as DatabaseError:
            let code = error.extendedResultCode
            if error.resultCode == .SQLITE_CONSTRAINT {
                let message = error.message ?? ""
                if message.contains("directory_entries.nickname") {
                    return WotsError(.nicknameTaken, "the nickname is taken")
                }
                if message.contains("directory_entries.token") || message.contains("private_records.token") {
                    return WotsError(.tokenTaken, "the token is registered already")
                }
                if message.contains("mailbox_messages.sender") {
                    return WotsError(.messageIDConflict, "the message id was used by this sender already")
                }
            }
            if error.resultCode == .SQLITE_FULL {
                return WotsError(.storageFull, "the disk is full: could not \(action)")
            }
            return WotsError(.storageUnavailable, "SQLite failed to \(action) (\(code))")
        default:
            return WotsError(.storageUnavailable, "SQLite failed to \(action) (\(type(of: error)))")
        }
    }
}
