import Foundation
import GRDB
import WotsCore

extension SQLiteDatabase {
    /// Copies the database, as it stands at one moment, to a new file at `path` with SQLite's online backup API,
    /// while the relay goes on reading and writing.
    ///
    /// The copy is written under a temporary name beside `path` (created owner-only), switched from WAL to a
    /// rollback journal so it is one self-contained file, flushed to disk, then renamed into place: `path` is either
    /// absent or a complete backup, never half of one.
    /// - Returns: the backup's size in bytes.
    /// - Throws: `invalid_argument` when `path` exists already or its folder does not; `storage_unavailable` when
    ///   the copy fails.
    package func backup(to path: String) async throws -> Int64 {
        let target = URL(fileURLWithPath: path)
        let folder = target.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: target.path) else {
            throw WotsError(.invalidArgument, "\(target.path) exists already; backups never overwrite a file")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw WotsError(.invalidArgument, "the folder of \(target.path) does not exist")
        }
        let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)")
        defer { Self.removeLeftovers(of: temporary.path) }
        try BackupFile.createOwnerOnly(temporary.path)
        do {
            let destination = try DatabaseQueue(path: temporary.path)
            try await destination.writeWithoutTransaction { [pool = self.pool] copy in
                // A read transaction on the live pool: the copy is the database as of its start, while writers go on.
                try pool.read { live in try live.backup(to: copy) }
                try copy.execute(sql: "PRAGMA journal_mode = DELETE")
            }
            try destination.close()
        } catch {
            throw Self.storageError(error, while: "back up to \(target.path)")
        }
        for sidecar in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: temporary.path + sidecar) {
            throw WotsError(.storageUnavailable, "the backup left \(temporary.lastPathComponent + sidecar) behind")
        }
        try BackupFile.synchronize(temporary.path)
        try BackupFile.rename(temporary.path, to: target.path)
        try BackupFile.synchronize(folder.path)
        return (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int64) ?? 0
    }

    private static func removeLeftovers(of path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
