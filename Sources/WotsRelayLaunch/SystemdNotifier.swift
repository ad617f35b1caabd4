import Foundation
import WotsCore

#if canImport(Glibc)
    import Glibc
#endif

/// Tells the service manager about the relay's state through `$NOTIFY_SOCKET` (`Type=notify` units): `READY=1` once
/// it serves, `STOPPING=1` when it begins to stop.
///
/// The protocol is one datagram per message on a unix socket; a socket name beginning with `@` is in the abstract
/// namespace. No libsystemd: the relay only needs `socket(2)` and `sendto(2)`.
package struct SystemdNotifier: Sendable {
    package let socketPath: String

    /// The notifier for `NOTIFY_SOCKET` in `environment`, or nil when it is unset or empty (not run by systemd).
    package init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        self.socketPath = path
    }

    package init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `state` (`READY=1`, `STOPPING=1`, `STATUS=…`) as one datagram.
    /// - Throws: `invalid_argument` for a socket name that is not absolute, abstract, or that is too long;
    ///   `internal_error` naming the system's reason when the datagram cannot be sent.
    package func notify(_ state: String) throws {
        var address = try self.address()
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw self.failure("socket") }
        defer { close(descriptor) }
        let payload = Array(state.utf8)
        let sent = withUnsafePointer(to: &address.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, payload, payload.count, Int32(MSG_NOSIGNAL), socketAddress, address.length)
            }
        }
        guard sent == payload.count else { throw self.failure("sendto") }
    }

    private func address() throws -> (storage: sockaddr_un, length: socklen_t) {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(self.socketPath.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        guard isAbstract || bytes.first == UInt8(ascii: "/") else {
            throw WotsError(
                .invalidArgument,
                "NOTIFY_SOCKET \"\(self.socketPath.prefix(60))\" is neither an absolute path nor an @abstract name"
            )
        }
        if isAbstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count < capacity else {
            throw WotsError(.invalidArgument, "NOTIFY_SOCKET is \(bytes.count) bytes; at most \(capacity - 1) fit")
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            path.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        // An abstract name is exactly its bytes; a path is terminated by the NUL after it.
        let length = pathOffset + bytes.count + (isAbstract ? 0 : 1)
        return (storage, socklen_t(length))
    }

    private func failure(_ call: String) -> WotsError {
        let reason = String(cString: strerror(errno))
        return WotsError(.internalError, "notifying systemd at \(self.socketPath): \(call) failed: \(reason)")
    }
}
