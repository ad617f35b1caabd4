public import Foundation
import WotsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The account's files on this machine: profile, sealed private record, pinned contacts, seen message ids.
///
/// The folder is 0700 and every file 0600, written atomically (a temporary file renamed over the old one), so a crash
/// never leaves a half-written file. The private keys are only ever stored sealed (inside `PrivateRecord`).
public struct LocalStore: Sendable {
    /// File names inside the home folder.
    public enum FileName {
        public static let profile = "profile.json"
        public static let privateRecord = "private-record.json"
        public static let pendingPrivateRecord = "private-record.pending.json"
        public static let contacts = "contacts.json"
        public static let seenMessages = "seen-messages.json"
    }

    /// The home folder.
    public let home: URL

    /// Uses `home` as the account folder; nothing is touched until something is read or written.
    public init(home: URL) { self.home = home }

    /// Where the account lives when no folder is given: `WOTS_HOME`, else `$XDG_DATA_HOME/wots`, else
    /// `~/.local/share/wots`.
    /// - Parameter environment: the process environment (passed in so libraries never read it themselves).
    public static func defaultHome(environment: [String: String]) -> URL {
        if let home = environment["WOTS_HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("wots", isDirectory: true)
        }
        let user = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: user, isDirectory: true)
            .appendingPathComponent(".local/share/wots", isDirectory: true)
    }

    func url(_ name: String) -> URL { self.home.appendingPathComponent(name, isDirectory: false) }

    // MARK: Folder

    /// Creates the home folder with mode 0700 if missing; refuses a folder other users can read or enter.
    /// - Throws: `WotsError.localStore` naming the folder and its mode.
    public func prepareHome() throws {
        let path = self.home.path
        var info = stat()
        if stat(path, &info) != 0 {
            let parent = self.home.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            } catch {
                throw WotsError(.localStore, "cannot create folder \(parent.path): \(error.localizedDescription)")
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw WotsError(.localStore, "cannot create folder \(path): \(String(cString: strerror(errno)))")
            }
            _ = chmod(path, 0o700)  // the umask may have removed bits, never added any; make it exact
            return
        }
        guard (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFDIR) else {
            throw WotsError(.localStore, "\(path) is not a folder")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw WotsError(
                .localStore,
                "folder \(path) is open to other users (mode \(String(mode, radix: 8))); run `chmod 700 \(path)`"
            )
        }
    }

    /// Whether the home folder holds an account (a profile).
    public var hasAccount: Bool { FileManager.default.fileExists(atPath: self.url(FileName.profile).path) }

    // MARK: Files

    /// Reads and decodes a JSON file; nil when it does not exist.
    /// - Throws: `WotsError.localStore` when it exists but cannot be read or decoded.
    func read<Value: Decodable>(_ type: Value.Type, from name: String) throws -> Value? {
        let url = self.url(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw WotsError(.localStore, "cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            return try WireCoding.makeDecoder().decode(Value.self, from: data)
        } catch {
            throw WotsError(.localStore, "\(url.path) is damaged: \(error)")
        }
    }

    /// Encodes a value as JSON and writes it atomically with mode 0600.
    /// - Throws: `WotsError.localStore` naming the file.
    func write(_ value: some Encodable, to name: String, exclusive: Bool = false) throws {
        let encoder = WireCoding.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw WotsError(.localStore, "cannot encode \(name): \(error)")
        }
        try self.writeAtomically(Array(data) + [0x0A], to: name, exclusive: exclusive)
    }

    /// Writes bytes to a fresh 0600 temporary file, syncs it, and renames it over `name`.
    /// - Parameter exclusive: fail when `name` exists already (registration must not overwrite an account).
    func writeAtomically(_ bytes: [UInt8], to name: String, exclusive: Bool) throws {
        try self.prepareHome()
        let target = self.url(name).path
        let temporary = self.url(".\(name).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WotsError(.localStore, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil {
            if exclusive {
                // link(2) fails when the target exists, so two racing registrations cannot both win.
                if link(temporary, target) != 0 {
                    failure = errno == EEXIST ? "it exists already" : String(cString: strerror(errno))
                }
                unlink(temporary)
            } else if rename(temporary, target) != 0 {
                failure = String(cString: strerror(errno))
            }
        }
        if let failure {
            unlink(temporary)
            throw WotsError(.localStore, "cannot write \(target): \(failure)")
        }
        self.syncFolder()
    }

    /// Removes a file; a missing file is not an error.
    func remove(_ name: String) throws {
        let path = self.url(name).path
        guard unlink(path) == 0 || errno == ENOENT else {
            throw WotsError(.localStore, "cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func syncFolder() {
        let descriptor = open(self.home.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
