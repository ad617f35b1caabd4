import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore

/// The replies of one socket, written in the order of the client frames they answer, each as soon as it and every
/// earlier one is known. A reply waiting for a commit does not hold up reading the next frames, so one socket's sends
/// share group commits with each other; at most `limit` replies wait at a time (written ones count until the kernel
/// took them), after which reading pauses.
///
/// No task runs for it: a reply is encoded by whoever made it, and the replies ready in order go to the socket as one
/// batch; when a batch is written, the next one that became ready meanwhile follows.
final class ReplyLine: Sendable {
    /// Frames ready to go out in order, and how many replies they are.
    private typealias Batch = (frames: [WebSocketFrame], replies: UInt64)

    private struct State {
        /// The place the next frame read gets.
        var nextPlace: UInt64 = 0
        /// The place of the first reply not written yet.
        var nextToWrite: UInt64 = 0
        var ready: [UInt64: [WebSocketFrame]] = [:]
        var isWriting = false
        var hasFailed = false
        var roomWaiter: CheckedContinuation<Void, Never>?

        var waiting: UInt64 { self.nextPlace - self.nextToWrite }

        /// Whether the next frame may be read now: fewer than `limit` replies wait, or the socket failed.
        func hasRoom(below limit: UInt64) -> Bool { self.waiting < limit || self.hasFailed }

        mutating func takePlace() -> UInt64 {
            defer { self.nextPlace += 1 }
            return self.nextPlace
        }

        /// The replies ready in order from `nextToWrite`, with how many replies they are; marks a write under way.
        mutating func takeReady() -> Batch {
            var frames: [WebSocketFrame] = []
            var replies: UInt64 = 0
            while let reply = self.ready.removeValue(forKey: self.nextToWrite + replies) {
                frames.append(contentsOf: reply)
                replies += 1
            }
            self.isWriting = replies > 0
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
        if let place = self.state.withLock({ $0.hasRoom(below: self.limit) ? $0.takePlace() : nil }) { return place }
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

    /// The reply for the frame at `place`; written once every earlier reply was.
    func answer(_ place: UInt64, with frame: RelayFrame) {
        let encoded = (try? self.writer.encode([frame])) ?? []
        let batch = self.state.withLock { state -> Batch? in
            guard !state.hasFailed else { return nil }
            state.ready[place] = encoded
            guard !state.isWriting, state.ready[state.nextToWrite] != nil else { return nil }
            return state.takeReady()
        }
        if let batch { self.write(batch) }
    }

    private func write(_ batch: Batch) {
        self.writer.write(batch.frames).whenComplete { (result: Result<Void, any Error>) in
            switch result {
            case .success:
                let (next, waiter) = self.state.withLock { state -> (Batch, CheckedContinuation<Void, Never>?) in
                    state.nextToWrite += batch.replies
                    let next = state.takeReady()
                    guard state.waiting < self.limit else { return (next, nil) }
                    defer { state.roomWaiter = nil }
                    return (next, state.roomWaiter)
                }
                waiter?.resume()
                // Through the event loop's queue, so a long run of batches does not deepen this stack.
                if next.replies > 0 { self.writer.afterCurrentWrites { self.write(next) } }
            case .failure:
                // The socket is gone; its read loop ends on its own.
                let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.hasFailed = true
                    state.isWriting = false
                    state.ready.removeAll()
                    defer { state.roomWaiter = nil }
                    return state.roomWaiter
                }
                waiter?.resume()
            }
        }
    }
}
