#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP client that upgrades to `/v1/stream` and then never reads: the slowest reader there is.
final class StalledSocket {
    private let descriptor: Int32

    /// Connects with a small receive buffer and sends the upgrade request with `session` as bearer.
    init(port: Int, session: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket() failed") }
        self.descriptor = descriptor
        var receiveBuffer: Int32 = 4_096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw SocketError(description: "connect() failed")
        }
        let request = Array(
            """
            GET /v1/stream HTTP/1.1\r
            Host: 127.0.0.1:\(port)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            Authorization: Bearer \(session)\r
            \r

            """.utf8
        )
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            Glibc.close(descriptor)
            throw SocketError(description: "send() failed")
        }
    }

    func close() {
        Glibc.close(self.descriptor)
    }
}
