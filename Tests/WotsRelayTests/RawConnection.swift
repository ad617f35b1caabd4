import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP client on loopback that sends whatever bytes a test gives it and reads with bounded waits: for the
/// attacks a well-behaved HTTP or WebSocket client library cannot make.
///
/// Reads block in `poll` on a Dispatch thread, never on the cooperative pool the in-process relay needs to answer.
/// `@unchecked Sendable`: one test task uses a connection at a time, and waits while its read runs.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    /// Everything read so far.
    private(set) var received: [UInt8] = []
    /// Whether the relay closed (or reset) the connection.
    private(set) var isClosed = false

    init(port: Int) throws {
        self.descriptor = try LoopbackSocket.connect(port: port)
    }

    deinit { Glibc.close(self.descriptor) }

    /// Sends `bytes`; false when the relay has closed the connection already.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    @discardableResult
    func send(_ text: String) -> Bool { self.send(Array(text.utf8)) }

    /// Reads until `done` holds for what was received, the relay closes, or `timeout` passes; whether `done` holds.
    @discardableResult
    func read(timeout: Duration, until done: @escaping @Sendable ([UInt8]) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.readBlocking(timeout: timeout, until: done))
            }
        }
    }

    private func readBlocking(timeout: Duration, until done: ([UInt8]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done(self.received), !self.isClosed {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000
            )
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                self.received += chunk[0..<count]
            } else {
                self.isClosed = true
            }
        }
        return done(self.received)
    }

    /// Reads until the relay closes the connection or `timeout` passes; whether it closed.
    func waitForClose(timeout: Duration) async -> Bool {
        await self.read(timeout: timeout) { _ in false }
        return self.isClosed
    }

    /// What was received, as text (lossy).
    var text: String { String(decoding: self.received, as: UTF8.self) }
}
