import Foundation
import WotsCore

#if canImport(Glibc)
    import Glibc
#endif

/// A real unix datagram socket bound where systemd would listen for `NOTIFY_SOCKET` messages.
public struct DatagramListener: Sendable {
    let descriptor: Int32
    let path: String?

    /// Binds `name`: a path, or `@name` in the abstract namespace.
    public init(name: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0 else {
            throw WotsError(.internalError, "cannot bind \(name): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.path = abstract ? nil : name
    }

    /// The next datagram, or an error when none arrives in time.
    public func receive(within timeout: Duration) throws -> String {
        var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout.components.seconds * 1_000))
        guard ready == 1 else { throw WotsError(.internalError, "no datagram within \(timeout)") }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(self.descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { throw WotsError(.internalError, "recv: \(String(cString: strerror(errno)))") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    public func close() {
        _ = Glibc.close(self.descriptor)
        if let path { unlink(path) }
    }
}
