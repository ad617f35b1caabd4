#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP socket connected to 127.0.0.1, for the raw test clients.
enum LoopbackSocket {
    /// - Parameter receiveBufferSize: `SO_RCVBUF` set before connecting (a small one makes a slow reader); default the
    ///   system's.
    /// - Returns: the connected descriptor; the caller closes it.
    static func connect(port: Int, receiveBufferSize: Int32? = nil) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket() failed: errno \(errno)") }
        if var size = receiveBufferSize {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw SocketError(description: "connect() failed: errno \(failure)")
        }
        return descriptor
    }
}
