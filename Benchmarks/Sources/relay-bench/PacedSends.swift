import NIOCore
import WotsCore

/// One sender socket's run of `send` frames, paced either by a window of unanswered frames (saturation, the store
/// over the stream) or by a schedule (the offered rates). Used on the socket's event loop only.
struct PacedSends {
    private enum Pace {
        case idle
        case window(size: Int, deadline: UInt64)
        case schedule(start: UInt64, offset: Double, interval: Double)
    }

    private var pace = Pace.idle
    private var frames: [ByteBuffer] = []
    private var next = 0
    private var unanswered = 0
    private var late = 0
    private var done: EventLoopPromise<Int>?

    mutating func startWindowed(_ frames: [ByteBuffer], window: Int, deadline: UInt64, done: EventLoopPromise<Int>) {
        self.start(frames, pace: .window(size: max(1, window), deadline: deadline), done: done)
    }

    mutating func startScheduled(
        _ frames: [ByteBuffer],
        start: UInt64,
        offset: Double,
        interval: Double,
        done: EventLoopPromise<Int>
    ) {
        self.start(frames, pace: .schedule(start: start, offset: offset, interval: interval), done: done)
    }

    /// A `send` frame was answered (`accepted` or `error`).
    mutating func answered() { self.unanswered = max(0, self.unanswered - 1) }

    /// The next frame the window lets out now, if any.
    mutating func nextWindowed(now: UInt64) -> ByteBuffer? {
        guard case .window(let size, let deadline) = self.pace else { return nil }
        guard self.next < self.frames.count, now < deadline else {
            self.finish()
            return nil
        }
        guard self.unanswered < size else { return nil }
        return self.take()
    }

    /// The next frame whose time has come, if any.
    mutating func nextDue(now: UInt64) -> ByteBuffer? {
        guard case .schedule = self.pace, let due = self.nextScheduledTime, due <= now else { return nil }
        if now - due > 1_000_000 { self.late += 1 }
        let frame = self.take()
        if self.next == self.frames.count { self.finish() }
        return frame
    }

    /// When the next scheduled frame is due (ns), while a schedule runs.
    var nextScheduledTime: UInt64? {
        guard case .schedule(let start, let offset, let interval) = self.pace, self.next < self.frames.count else {
            return nil
        }
        return start + UInt64(offset + interval * Double(self.next))
    }

    mutating func fail(_ error: any Error) {
        self.done?.fail(error)
        self.reset()
    }

    private mutating func start(_ frames: [ByteBuffer], pace: Pace, done: EventLoopPromise<Int>) {
        self.fail(BenchError("a new run of sends started before the last one ended"))
        self.frames = frames
        self.pace = pace
        self.done = done
        if frames.isEmpty { self.finish() }
    }

    private mutating func take() -> ByteBuffer {
        defer { self.next += 1 }
        self.unanswered += 1
        return self.frames[self.next]
    }

    private mutating func finish() {
        self.done?.succeed(self.late)
        self.reset()
    }

    private mutating func reset() {
        self.done = nil
        self.pace = .idle
        self.frames = []
        self.next = 0
        self.late = 0
    }
}

/// The keys a recipient has yet to acknowledge, each already in its JSON form `{"id":"…","sender":"…"}`, and the
/// `ack` frames made of them, at most `AcknowledgeRequest.maximumCount` keys each.
struct AcknowledgementBatch {
    private var entries: [UInt8] = []
    private var ends: [Int] = []

    var isEmpty: Bool { self.ends.isEmpty }

    mutating func append(id: UnsafeRawBufferPointer, sender: UnsafeRawBufferPointer) {
        self.entries.append(contentsOf: Self.idPrefix)
        self.entries.append(contentsOf: id)
        self.entries.append(contentsOf: Self.senderPrefix)
        self.entries.append(contentsOf: sender)
        self.entries.append(contentsOf: Self.entryEnd)
        self.ends.append(self.entries.count)
    }

    /// The payload of the next `ack` frame, taking its keys out of the batch; nil when there are none.
    mutating func takeFrame(allocator: ByteBufferAllocator?) -> ByteBuffer? {
        guard let allocator, !self.ends.isEmpty else { return nil }
        let count = min(self.ends.count, AcknowledgeRequest.maximumCount)
        let taken = self.ends[count - 1]
        var payload = allocator.buffer(capacity: taken + count + 32)
        payload.writeBytes(Self.frameStart)
        var start = 0
        for (index, end) in self.ends.prefix(count).enumerated() {
            if index > 0 { payload.writeInteger(UInt8(ascii: ",")) }
            _ = self.entries.withUnsafeBytes { payload.writeBytes(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            start = end
        }
        payload.writeBytes(Self.frameEnd)
        if count == self.ends.count {
            self.entries.removeAll(keepingCapacity: true)
            self.ends.removeAll(keepingCapacity: true)
        } else {
            self.entries.removeFirst(taken)
            self.ends = self.ends.dropFirst(count).map { $0 - taken }
        }
        return payload
    }

    private static let idPrefix = Array("{\"id\":\"".utf8)
    private static let senderPrefix = Array("\",\"sender\":\"".utf8)
    private static let entryEnd = Array("\"}".utf8)
    private static let frameStart = Array("{\"messages\":[".utf8)
    private static let frameEnd = Array("],\"type\":\"ack\"}".utf8)
}
