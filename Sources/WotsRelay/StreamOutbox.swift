import NIOCore
import NIOWebSocket
import Synchronization

/// One socket's frames waiting for its event loop, written and flushed together at the loop's next turn: what the
/// relay has for a socket while the loop handles a burst of reads (replies, deliveries, from any thread) leaves in
/// one hop and one `writev`, where a flush per write cost a system call each.
final class StreamOutbox: Sendable {
    private struct Waiting {
        var frames: [WebSocketFrame] = []
        /// Each write's promise, with the number of frames up to and including its last.
        var writes: [(end: Int, promise: EventLoopPromise<Void>)] = []
        var isScheduled = false
    }

    private let waiting = Mutex(Waiting())

    /// Queues `frames` after those already waiting; the future succeeds once the kernel took them all.
    func write(_ frames: [WebSocketFrame], to channel: any Channel) -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let schedules = self.waiting.withLock { waiting in
            waiting.frames.append(contentsOf: frames)
            waiting.writes.append((waiting.frames.count, promise))
            defer { waiting.isScheduled = true }
            return !waiting.isScheduled
        }
        if schedules { channel.eventLoop.execute { self.drain(to: channel) } }
        return promise.futureResult
    }

    private func drain(to channel: any Channel) {
        let taken = self.waiting.withLock { waiting in
            defer { waiting = Waiting() }
            return waiting
        }
        var start = 0
        for (end, promise) in taken.writes {
            guard end > start else {
                promise.succeed()
                continue
            }
            for frame in taken.frames[start..<(end - 1)] { channel.write(frame, promise: nil) }
            channel.write(taken.frames[end - 1], promise: promise)
            start = end
        }
        channel.flush()
    }
}
