#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP client that upgrades to `/v1/stream` and then never reads: the slowest reader there is.
final class StalledSocket {
    private let descriptor: Int32

    /// Connects with a small receive buffer and sends the upgrade request with `session` as bearer.
    init(port: Int, session: String) throws {
        let descriptor = try LoopbackSocket.connect(port: port, receiveBufferSize: 4_096)
        self.descriptor = descriptor
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
