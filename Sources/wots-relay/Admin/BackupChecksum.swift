import Foundation
import WotsCore
import WotsCrypto

/// The SHA-256 of a backup file, recorded beside it as `FILE.sha256` in `sha256sum` format, so `verify-backup` (or
/// `sha256sum -c`) can tell that not one byte changed since the backup was made, even where SQLite's own checks and
/// the envelope parser cannot see (inside a stored envelope's ciphertext).
enum BackupChecksum {
    /// What `verify-backup` found about the recorded checksum.
    enum Finding: String, Codable, Sendable {
        case matches, differs, absent
    }

    static func sidecar(of path: String) -> String { path + ".sha256" }

    /// The file's SHA-256 in hex.
    static func compute(_ path: String) throws -> String {
        Hex.encode(try SHA256.hash(fileAt: path))
    }

    /// Hashes the backup at `path` and writes `path.sha256`, owner-only, flushed, replacing a stale one.
    /// - Returns: the checksum.
    static func record(for path: String) throws -> String {
        let checksum = try Self.compute(path)
        let line = "\(checksum)  \(URL(fileURLWithPath: path).lastPathComponent)\n"
        let target = Self.sidecar(of: path)
        let temporary = target + ".partial-\(UUID().uuidString)"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WotsError(.storageUnavailable, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let flushed = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, flushed == 0, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw WotsError(.storageUnavailable, "cannot write \(target): \(String(cString: strerror(errno)))")
        }
        return checksum
    }

    /// Compares the file with the checksum recorded beside it; `problem` says what differs.
    static func check(_ path: String) throws -> (finding: Finding, problem: String?) {
        guard let recorded = try? String(contentsOfFile: Self.sidecar(of: path), encoding: .utf8) else {
            return (.absent, nil)
        }
        let expected = String(recorded.prefix(while: { !$0.isWhitespace })).lowercased()
        let actual = try Self.compute(path)
        guard actual == expected else {
            return (
                .differs,
                "its SHA-256 is \(actual.prefix(16))…, not the \(expected.prefix(16))… recorded in "
                    + "\(URL(fileURLWithPath: Self.sidecar(of: path)).lastPathComponent) when the backup was made: "
                    + "the file changed since"
            )
        }
        return (.matches, nil)
    }
}
