import Foundation
import WotsCore

/// The file-system steps that make a backup appear whole or not at all.
enum BackupFile {
    /// Creates an empty file readable and writable by its owner only; fails if it exists.
    static func createOwnerOnly(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WotsError(.storageUnavailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
    }

    /// Flushes a file, or a folder's entries, to the disk (`fsync`).
    static func synchronize(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw WotsError(.storageUnavailable, "cannot open \(path) to flush it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw WotsError(.storageUnavailable, "cannot flush \(path) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// Gives `source` the name `target` in one step (both in the same folder), never replacing an existing `target`:
    /// a hard link fails if the name is taken, where `rename` would silently replace it.
    static func rename(_ source: String, to target: String) throws {
        guard link(source, target) == 0 else {
            throw WotsError(
                errno == EEXIST ? .invalidArgument : .storageUnavailable,
                "cannot name the backup \(target): \(String(cString: strerror(errno)))"
            )
        }
        unlink(source)
    }
}
