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
        if Self.writeFramed(taken, to: channel) { return channel.flush() }
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

    /// Text frames, the bulk of what a socket is sent, are framed here into one buffer and written past the frame
    /// encoder in one write: each frame through the pipeline's handlers cost a boxed frame, a header buffer and a
    /// pending write of its own. False, and nothing written, when a frame of another kind is among them or the pipeline
    /// has no frame encoder: the frames then take the handlers' path.
    private static func writeFramed(_ taken: Waiting, to channel: any Channel) -> Bool {
        guard taken.frames.allSatisfy(WebSocketFraming.isPlainData),
            let fence = try? channel.pipeline.syncOperations.handler(type: CloseFence.self), fence.writesFramed
        else { return false }
        var bytes = channel.allocator.buffer(capacity: taken.frames.reduce(0) { $0 + $1.data.readableBytes + 10 })
        for frame in taken.frames { WebSocketFraming.append(frame, to: &bytes) }
        let promise: EventLoopPromise<Void>?
        switch taken.writes.count {
        case 0: promise = nil
        case 1: promise = taken.writes[0].promise
        default:
            let all = channel.eventLoop.makePromise(of: Void.self)
            all.futureResult.whenComplete { result in
                for (_, each) in taken.writes { each.completeWith(result) }
            }
            promise = all
        }
        fence.writeFramed(bytes, promise: promise)
        return true
    }
}

/// Server frames as RFC 6455 §5.2 lays them out: FIN and the opcode, the payload length in 7, 7+16 or 7+64 bits, no
/// mask, then the payload.
enum WebSocketFraming {
    /// A text or continuation frame with no mask, reserved bits or extension data: all `append` writes.
    static func isPlainData(_ frame: WebSocketFrame) -> Bool {
        (frame.opcode == .text || frame.opcode == .continuation) && frame.maskKey == nil && frame.extensionData == nil
            && !frame.rsv1 && !frame.rsv2 && !frame.rsv3
    }

    static func append(_ frame: WebSocketFrame, to bytes: inout ByteBuffer) {
        bytes.writeInteger(UInt8(frame.fin ? 0x80 : 0) | UInt8(webSocketOpcode: frame.opcode))
        let length = frame.data.readableBytes
        switch length {
        case ..<126:
            bytes.writeInteger(UInt8(length))
        case ...Int(UInt16.max):
            bytes.writeInteger(UInt8(126))
            bytes.writeInteger(UInt16(length))
        default:
            bytes.writeInteger(UInt8(127))
            bytes.writeInteger(UInt64(length))
        }
        bytes.writeImmutableBuffer(frame.data)
    }
}
