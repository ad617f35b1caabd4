import Foundation
import NIOCore
import WotsCore

/// The load generator's end of one `/v1/stream` socket, on the socket's event loop: the HTTP upgrade, RFC 6455
/// framing, and the client's side of schema/stream.md (acknowledging what arrives, pacing sends by a window of
/// unanswered frames or by a schedule on the loop's timer). Everything a frame costs here is a byte scan and a
/// write: no task, actor hop or `String` per frame, so the load generator takes as little as it can of the cores it
/// shares with the relay it measures.
final class StreamClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let role: StreamConnection.Role
    private let acks: StreamConnection.AckPolicy
    private let collector: Collector
    private let upgradeRequest: String
    private var ready: EventLoopPromise<Void>?
    private var context: ChannelHandlerContext?
    private var isUpgraded = false
    private var isClosing = false
    /// Bytes read and not parsed yet: the rest of the upgrade response, or of a frame.
    private var unread: ByteBuffer?
    /// The frames of a fragmented message so far.
    private var fragments: ByteBuffer?
    private var masks = MaskKeys()
    private var needsFlush = false
    private var acknowledgements = AcknowledgementBatch()
    private var isAckUnanswered = false
    /// `ack` frames written and not answered yet (`acked` or `error`).
    private var unansweredAckFrames = 0
    /// Waiting for every `ack` frame to be answered: the relay answers one once its deletions are written.
    private var acksSettled: [EventLoopPromise<Void>] = []
    private var sends = PacedSends()
    /// Message id → its scheduled send time (ns), while latency is measured.
    private var schedule: [MessageIDKey: UInt64]?
    /// Send-to-delivery latencies in µs since the schedule was set.
    private(set) var latencies: [UInt64] = []

    init(
        role: StreamConnection.Role,
        acks: StreamConnection.AckPolicy,
        collector: Collector,
        upgradeRequest: String,
        ready: EventLoopPromise<Void>
    ) {
        self.role = role
        self.acks = acks
        self.collector = collector
        self.upgradeRequest = upgradeRequest
        self.ready = ready
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(Self.wrapOutboundOut(context.channel.allocator.buffer(string: self.upgradeRequest)))
            .whenFailure { [ready = self.ready] in ready?.fail($0) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.ready?.fail(BenchError("the stream closed before the relay said ready"))
        self.ready = nil
        self.sends.fail(BenchError("the stream closed while sending"))
        for settled in self.acksSettled { settled.fail(BenchError("the stream closed before its acks were answered")) }
        self.acksSettled = []
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.ready?.fail(error)
        self.ready = nil
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = Self.unwrapInboundIn(data)
        if var unread = self.unread {
            unread.writeBuffer(&incoming)
            incoming = unread
        }
        self.unread = nil
        if !self.isUpgraded {
            guard self.readUpgradeResponse(&incoming, context: context) else { return }
        }
        while let header = ClientFrames.header(in: incoming),
            incoming.readableBytes >= header.headerLength + header.length
        {
            incoming.moveReaderIndex(forwardBy: header.headerLength)
            let payload = incoming.readSlice(length: header.length)!
            self.received(header, payload, context: context)
        }
        if incoming.readableBytes > 0 {
            // Copied so the next read appends to a buffer of its own, not to the end of a slice of this one.
            var rest = context.channel.allocator.buffer(capacity: max(incoming.readableBytes * 2, 4096))
            rest.writeBuffer(&incoming)
            self.unread = rest
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.flushIfNeeded(context)
        context.fireChannelReadComplete()
    }

    // MARK: Driven from `StreamConnection`, on the loop

    /// Writes `frames` in order, at most `window` unanswered, until all were written or `deadline` (ns) passed.
    func sendWindowed(_ frames: [ByteBuffer], window: Int, until deadline: UInt64, done: EventLoopPromise<Int>) {
        self.sends.startWindowed(frames, window: window, deadline: deadline, done: done)
        self.fillWindow()
    }

    /// Writes frame k at `start + offset + k * interval` (ns) without waiting for answers; `done` gets how many went
    /// more than 1 ms after their time.
    func sendScheduled(
        _ frames: [ByteBuffer],
        start: UInt64,
        offset: Double,
        interval: Double,
        done: EventLoopPromise<Int>
    ) {
        self.sends.startScheduled(frames, start: start, offset: offset, interval: interval, done: done)
        self.sendDue()
    }

    /// Measures latency against these scheduled send times from now on (nil: stops measuring).
    func measureLatency(against schedule: [MessageIDKey: UInt64]?) {
        self.schedule = schedule
        self.latencies.removeAll(keepingCapacity: true)
        if let schedule { self.latencies.reserveCapacity(schedule.count) }
    }

    /// Sends what waits to be acknowledged, whether or not an `ack` frame is unanswered.
    func flushAcknowledgements() {
        while !self.acknowledgements.isEmpty { self.writeAck() }
        if let context { self.flushIfNeeded(context) }
    }

    /// Sends what waits to be acknowledged and succeeds `settled` once every `ack` frame written was answered.
    func settleAcknowledgements(_ settled: EventLoopPromise<Void>, timeout: TimeAmount) {
        self.flushAcknowledgements()
        guard self.unansweredAckFrames > 0, let context else { return settled.succeed() }
        self.acksSettled.append(settled)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: timeout) {
            let handler = loopBound.value
            guard let index = handler.acksSettled.firstIndex(where: { $0.futureResult === settled.futureResult })
            else { return }
            handler.acksSettled.remove(at: index)
            settled.fail(BenchError("\(handler.unansweredAckFrames) ack frames unanswered after \(timeout)"))
        }
    }

    /// Starts the close handshake (1000).
    func sendClose() {
        guard let context, !self.isClosing else { return }
        self.isClosing = true
        self.write(opcode: ClientFrames.close, payload: [0x03, 0xE8])
        self.flushIfNeeded(context)
    }

    // MARK: Reading

    /// Reads the `101 Switching Protocols` head; false when it is incomplete or was refused.
    private func readUpgradeResponse(_ buffer: inout ByteBuffer, context: ChannelHandlerContext) -> Bool {
        let end = buffer.withUnsafeReadableBytes { FrameScan.end(of: "\r\n\r\n", in: $0) }
        guard let end else {
            self.unread = buffer
            return false
        }
        let head = buffer.readString(length: end) ?? ""
        guard head.hasPrefix("HTTP/1.1 101") else {
            self.ready?.fail(BenchError("upgrade refused: \(head.prefix(while: { $0 != "\r" }))"))
            self.ready = nil
            context.close(promise: nil)
            return false
        }
        self.isUpgraded = true
        return true
    }

    private func received(_ header: ClientFrames.Header, _ payload: ByteBuffer, context: ChannelHandlerContext) {
        switch header.opcode {
        case ClientFrames.ping:
            payload.withUnsafeReadableBytes { self.write(opcode: ClientFrames.pong, payload: $0) }
            self.needsFlush = true
        case ClientFrames.close:
            if !self.isClosing {
                self.isClosing = true
                payload.withUnsafeReadableBytes { self.write(opcode: ClientFrames.close, payload: $0) }
            }
            self.flushIfNeeded(context)
            context.close(promise: nil)
        case ClientFrames.text, 0x2:
            guard header.fin else {
                self.fragments = payload
                return
            }
            self.handle(message: payload)
        case 0x0:
            guard var fragments = self.fragments else { return }
            var more = payload
            fragments.writeBuffer(&more)
            self.fragments = header.fin ? nil : fragments
            if header.fin { self.handle(message: fragments) }
        default:
            break
        }
    }

    private func handle(message: ByteBuffer) {
        message.withUnsafeReadableBytes { bytes in
            switch FrameScan.kind(of: bytes) {
            case .message:
                guard let id = FrameScan.id(in: bytes), let sender = FrameScan.sender(in: bytes) else { return }
                self.delivered(
                    id: UnsafeRawBufferPointer(rebasing: bytes[id]),
                    sender: UnsafeRawBufferPointer(rebasing: bytes[sender])
                )
            case .groupMessage:
                guard let body = FrameScan.range(after: "\"body\":\"", in: bytes),
                    let decoded = Data(base64Encoded: FrameScan.string(bytes, body)),
                    let envelope = try? GroupEnvelope(serialized: Array(decoded))
                else { return }
                let key = envelope.header.messageKey
                var id = key.id.lowercasedString
                var sender = key.sender.description
                id.withUTF8 { id in
                    sender.withUTF8 {
                        self.delivered(id: UnsafeRawBufferPointer(id), sender: UnsafeRawBufferPointer($0))
                    }
                }
            case .accepted:
                self.collector.countAccepted()
                self.sendAnswered()
            case .error:
                let code = FrameScan.range(after: "\"code\":\"", in: bytes).map { FrameScan.string(bytes, $0) }
                self.collector.countRefused(code: code ?? "?")
                // Every frame gets a reply: on a sender's socket an error answers a `send`, on a recipient's an `ack`.
                if self.role == .sender { self.sendAnswered() } else { self.ackAnswered() }
            case .acked:
                self.ackAnswered()
            case .ready:
                self.ready?.succeed()
                self.ready = nil
            case .other:
                break
            }
        }
    }

    /// Counts a delivered message (and its latency while measured) and acknowledges it.
    private func delivered(id: UnsafeRawBufferPointer, sender: UnsafeRawBufferPointer) {
        if let schedule = self.schedule, let key = MessageIDKey(id), let sent = schedule[key] {
            let arrival = now()
            if arrival > sent { self.latencies.append((arrival - sent) / 1000) }
        }
        self.collector.countDelivered()
        self.acknowledgements.append(id: id, sender: sender)
        if self.acks == .each || !self.isAckUnanswered { self.writeAck() }
    }

    /// The relay answered an `ack` frame: under `coalesced`, what arrived meanwhile goes now.
    private func ackAnswered() {
        self.unansweredAckFrames = max(0, self.unansweredAckFrames - 1)
        if self.acks == .coalesced {
            self.isAckUnanswered = false
            if !self.acknowledgements.isEmpty { self.writeAck() }
        }
        guard self.unansweredAckFrames == 0, self.acknowledgements.isEmpty else { return }
        for settled in self.acksSettled { settled.succeed() }
        self.acksSettled = []
    }

    private func sendAnswered() {
        self.sends.answered()
        self.fillWindow()
    }

    // MARK: Writing

    private func writeAck() {
        guard let payload = self.acknowledgements.takeFrame(allocator: self.context?.channel.allocator) else { return }
        self.collector.countAckFrame()
        payload.withUnsafeReadableBytes { self.write(opcode: ClientFrames.text, payload: $0) }
        self.isAckUnanswered = true
        self.unansweredAckFrames += 1
    }

    private func fillWindow() {
        guard let context else { return }
        while let frame = self.sends.nextWindowed(now: now()) {
            context.write(Self.wrapOutboundOut(frame), promise: nil)
            self.needsFlush = true
        }
        self.flushIfNeeded(context)
    }

    private func sendDue() {
        guard let context else { return }
        let current = now()
        while let frame = self.sends.nextDue(now: current) {
            context.write(Self.wrapOutboundOut(frame), promise: nil)
            self.needsFlush = true
        }
        self.flushIfNeeded(context)
        guard let due = self.sends.nextScheduledTime else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(due)) { loopBound.value.sendDue() }
    }

    private func write(opcode: UInt8, payload: UnsafeRawBufferPointer) {
        guard let context else { return }
        var frame = context.channel.allocator.buffer(capacity: payload.count + 14)
        ClientFrames.masked(opcode: opcode, payload: payload, key: self.masks.next(), into: &frame)
        context.write(Self.wrapOutboundOut(frame), promise: nil)
        self.needsFlush = true
    }

    private func write(opcode: UInt8, payload: [UInt8]) {
        payload.withUnsafeBytes { self.write(opcode: opcode, payload: $0) }
    }

    private func flushIfNeeded(_ context: ChannelHandlerContext) {
        guard self.needsFlush else { return }
        self.needsFlush = false
        context.flush()
    }
}
