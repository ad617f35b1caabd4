import CKeyring
import WotsCore
import WotsCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Small secrets kept in the Linux kernel's session keyring (keyrings(7)), so they outlive one command but not the
/// login session, with a timeout, and no daemon.
///
/// Keys are of type "user", found by exact description, and readable only by processes that possess the session
/// keyring (permission mask possessor-only). When the login has no session keyring of its own, the kernel falls back
/// to the per-user "user session" keyring, shared by every such process of the same user; SECURITY.md says what that
/// means. Where the kernel refuses the calls (a seccomp filter, as in Docker's default profile, or a kernel without
/// keys), every method throws `WotsError.secretUnavailable` saying so.
public struct SessionKeyring: Sendable {
    /// Largest payload read back, in bytes; what Wots stores is far smaller.
    static let maximumPayload = 4096
    /// Possessor may view, read, write, search, link and set attributes; user, group and others nothing.
    static let possessorOnly: UInt32 = 0x3F00_0000

    public init() {}

    /// Stores `payload` under `description`, replacing a key of that description, until `timeout` has passed.
    /// - Parameter timeout: whole seconds, at least one.
    /// - Throws: `WotsError.secretUnavailable` when the keyring is unavailable or refuses the key (quota).
    public func store(_ payload: [UInt8], description: String, timeout: Duration) throws {
        let seconds = max(1, timeout.components.seconds)
        let keyring = wots_keyring_session()
        guard keyring != -1 else { throw Self.failure("find the session keyring") }
        let key = payload.withUnsafeBytes { buffer in
            wots_key_add(description, buffer.baseAddress, buffer.count, keyring)
        }
        guard key != -1 else { throw Self.failure("add a key to the session keyring") }
        // Restrict before the timeout: a failure below leaves no readable key behind.
        guard wots_key_set_permissions(key, Self.possessorOnly) == 0,
            wots_key_set_timeout(key, UInt32(clamping: seconds)) == 0
        else {
            let error = Self.failure("restrict the key in the session keyring")
            _ = wots_key_invalidate(key)
            throw error
        }
    }

    /// The payload stored under `description`; nil when there is none, or it expired or was removed.
    /// - Throws: `WotsError.secretUnavailable` when the keyring is unavailable.
    public func read(_ description: String) throws -> [UInt8]? {
        guard let key = try self.find(description) else { return nil }
        var buffer = [UInt8](repeating: 0, count: Self.maximumPayload)
        let length = buffer.withUnsafeMutableBytes { wots_key_read(key, $0.baseAddress, $0.count) }
        if length == -1 {
            if Self.isAbsent(errno) { return nil }
            throw Self.failure("read a key from the session keyring")
        }
        defer { cleanse(&buffer) }
        guard length <= buffer.count else { return nil }
        return Array(buffer[..<length])
    }

    /// Removes the key stored under `description` at once.
    /// - Returns: whether there was one.
    /// - Throws: `WotsError.secretUnavailable` when the keyring is unavailable.
    @discardableResult
    public func remove(_ description: String) throws -> Bool {
        guard let key = try self.find(description) else { return false }
        guard wots_key_invalidate(key) == 0 else {
            if Self.isAbsent(errno) { return false }
            throw Self.failure("remove a key from the session keyring")
        }
        return true
    }

    /// Whether the kernel lets this process use its session keyring (a search that finds nothing counts as yes).
    public static var isAvailable: Bool {
        do {
            _ = try SessionKeyring().find("wots:probe:\(UInt64.random(in: 0...UInt64.max))")
            return true
        } catch {
            return false
        }
    }

    private func find(_ description: String) throws -> Int32? {
        let keyring = wots_keyring_session()
        guard keyring != -1 else { throw Self.failure("find the session keyring") }
        let key = wots_key_search(keyring, description)
        if key == -1 {
            if Self.isAbsent(errno) { return nil }
            throw Self.failure("search the session keyring")
        }
        return key
    }

    /// No such key, or one that expired, was revoked or invalidated: all mean "not stored".
    private static func isAbsent(_ code: Int32) -> Bool {
        [ENOKEY, EKEYEXPIRED, EKEYREVOKED, ENOENT].contains(code)
    }

    private static func failure(_ action: String) -> WotsError {
        let code = errno
        let cause = String(cString: strerror(code))
        let unavailable = [ENOSYS, EPERM, EACCES, EOPNOTSUPP].contains(code)
        return WotsError(
            .secretUnavailable,
            unavailable
                ? "the session keyring is unavailable (cannot \(action): \(cause))"
                : "cannot \(action): \(cause)"
        )
    }
}
