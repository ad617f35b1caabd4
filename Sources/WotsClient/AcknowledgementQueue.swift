import WotsCore

/// A stream's acknowledgements, with at most one `ack` frame unanswered: the keys of messages handled while one is
/// unanswered wait, and go out together in one frame when the relay answers it. A quiet stream acknowledges each
/// message at once; a busy one acknowledges what it handled during one round trip in one frame, so the relay has
/// fewer frames to read and answer and fewer acknowledgements to write.
///
/// A key is only ever added after its message was handled, so batching never acknowledges anything early. When the
/// stream ends, the keys still waiting go in last frames (`remainingFrames`) that nobody waits to see answered; the
/// relay still acts on frames read before the socket closed. A key that never reached it comes again with its
/// message on the next connection.
struct AcknowledgementQueue: Sendable {
    /// One `ack` frame to send.
    struct Frame: Sendable, Hashable {
        let ref: String
        let keys: [MessageKey]
    }

    /// Keys handled and not sent yet, oldest first.
    private(set) var waiting: [MessageKey] = []
    /// The frame sent and not answered yet.
    private(set) var unanswered: Frame?
    private var framesMade = 0

    /// A message was handled: the frame to send now, or nil when its key waits for the unanswered frame's reply.
    mutating func add(_ key: MessageKey) -> Frame? {
        self.waiting.append(key)
        return self.takeNext()
    }

    /// The relay's `acked` for `ref`: the next frame, with every key that waited meanwhile, or nil.
    mutating func answered(_ ref: String) -> Frame? {
        guard self.isUnanswered(ref) else { return nil }
        self.unanswered = nil
        return self.takeNext()
    }

    func isUnanswered(_ ref: String) -> Bool { self.unanswered?.ref == ref }

    /// The relay refused the frame `ref` (schema/stream.md rule 4: nothing was deleted). Its keys wait again, ahead
    /// of the others, for `takeNext()`.
    mutating func refused(_ ref: String) {
        guard let frame = self.unanswered, frame.ref == ref else { return }
        self.unanswered = nil
        self.waiting.insert(contentsOf: frame.keys, at: 0)
    }

    /// The stream is ending: every waiting key, in frames of at most `AcknowledgeRequest.maximumCount`, sent without
    /// waiting for the unanswered frame's reply (or their own).
    mutating func remainingFrames() -> [Frame] {
        var frames: [Frame] = []
        self.unanswered = nil
        while let frame = self.takeNext() {
            frames.append(frame)
            self.unanswered = nil
        }
        return frames
    }

    /// The next frame when none is unanswered: the waiting keys, at most `AcknowledgeRequest.maximumCount`.
    mutating func takeNext() -> Frame? {
        guard self.unanswered == nil, !self.waiting.isEmpty else { return nil }
        let count = min(self.waiting.count, AcknowledgeRequest.maximumCount)
        self.framesMade += 1
        let frame = Frame(ref: "ack-\(self.framesMade)", keys: Array(self.waiting.prefix(count)))
        self.waiting.removeFirst(count)
        self.unanswered = frame
        return frame
    }
}
