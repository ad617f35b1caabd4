import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore

/// The replies of one socket, written in the order of the client frames they answer, each as soon as it and every
/// earlier one is known. A reply waiting for a commit does not hold up reading the next frames, so one socket's sends
/// share group commits with each other; at most `limit` replies wait at a time (written ones count until the kernel
/// took them), after which reading pauses.
///
/// No task runs for it: a reply is encoded by whoever made it, and the replies ready in order are handed to the
/// socket's outbox at once, which writes what it was handed meanwhile in one batch at the event loop's next turn.
final class ReplyLine: Sendable {
    private struct State {
        /// The place the next frame read gets.
        var nextPlace: UInt64 = 0
        /// The place of the first reply not handed to the outbox yet.
        var nextToWrite: UInt64 = 0
        /// How many replies the kernel took.
        var written: UInt64 = 0
        var ready: [UInt64: [WebSocketFrame]] = [:]
        var hasFailed = false
        var roomWaiter: CheckedContinuation<Void, Never>?

        var waiting: UInt64 { self.nextPlace - self.written }

        /// Whether the next frame may be read now: fewer than `limit` replies wait, or the socket failed.
        func hasRoom(below limit: UInt64) -> Bool { self.waiting < limit || self.hasFailed }

        mutating func takePlace() -> UInt64 {
            defer { self.nextPlace += 1 }
            return self.nextPlace
        }

        /// The replies ready in order from `nextToWrite`, with how many replies they are.
        mutating func takeReady() -> (frames: [WebSocketFrame], replies: UInt64) {
            var frames: [WebSocketFrame] = []
            var replies: UInt64 = 0
            while let reply = self.ready.removeValue(forKey: self.nextToWrite + replies) {
                frames.append(contentsOf: reply)
                replies += 1
            }
            self.nextToWrite += replies
            return (frames, replies)
        }
    }

    private let writer: StreamWriter
    private let limit: UInt64
    private let state = Mutex(State())

    init(writer: StreamWriter, limit: Int) {
        self.writer = writer
        self.limit = UInt64(max(1, limit))
    }

    /// Waits until fewer than `limit` replies wait, then gives the next frame its place.
    func place() async -> UInt64 {
        if let place = self.tryPlace() { return place }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hasRoom = self.state.withLock { state -> Bool in
                guard !state.hasRoom(below: self.limit) else { return true }
                state.roomWaiter = continuation
                return false
            }
            if hasRoom { continuation.resume() }
        }
        return self.state.withLock { $0.takePlace() }
    }

    /// The next frame's place when fewer than `limit` replies wait; nil (no place taken) otherwise.
    func tryPlace() -> UInt64? {
        self.state.withLock { $0.hasRoom(below: self.limit) ? $0.takePlace() : nil }
    }

    /// The reply for the frame at `place`; written once every earlier reply was.
    func answer(_ place: UInt64, with frame: RelayFrame) {
        let encoded = (try? self.writer.encode([frame])) ?? []
        // Handed to the outbox under the lock, so batches taken by two threads reach it in the order they were taken.
        let write = self.state.withLock { state -> (EventLoopFuture<Void>, UInt64)? in
            guard !state.hasFailed else { return nil }
            state.ready[place] = encoded
            let (frames, replies) = state.takeReady()
            guard replies > 0 else { return nil }
            return (self.writer.write(frames), replies)
        }
        guard let (written, replies) = write else { return }
        written.whenComplete { self.written(replies, $0) }
    }

    private func written(_ replies: UInt64, _ result: Result<Void, any Error>) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            switch result {
            case .success:
                state.written += replies
                guard state.hasRoom(below: self.limit) else { return nil }
            case .failure:
                // The socket is gone; its read loop ends on its own.
                state.hasFailed = true
                state.ready.removeAll()
            }
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        waiter?.resume()
    }
}
