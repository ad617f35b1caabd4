import CoreMetrics
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore
import WotsStorage

/// Sends one socket's mail in sequence order: what is queued when it opens, then what arrives whenever it is woken.
///
/// An idle socket holds no task: a wake-up starts one that drains the mailbox and ends. Wake-ups during a drain
/// make it read once more, so a signal is never lost and never runs two drains at once.
final class MailCourier: Sendable {
    static let batchSize = 100

    private struct State {
        var lastSequence: Int64 = 0
        var drain: Task<Void, Never>?
        var wokenDuringDrain = false
        var stopped = false
    }

    let token: Token
    private let mailboxes: any MailboxRepository
    private let metrics: RelayMetrics
    private let outbound: WebSocketOutboundWriter
    private let state = Mutex(State())

    init(token: Token, mailboxes: any MailboxRepository, metrics: RelayMetrics, outbound: WebSocketOutboundWriter) {
        self.token = token
        self.mailboxes = mailboxes
        self.metrics = metrics
        self.outbound = outbound
    }

    func wake() {
        self.state.withLock { state in
            guard !state.stopped else { return }
            guard state.drain == nil else {
                state.wokenDuringDrain = true
                return
            }
            state.drain = Task { await self.drainMailbox() }
        }
    }

    /// Sends a ping frame. A peer that has gone away stops acknowledging it, and the socket's TCP user timeout
    /// then closes the connection.
    func ping() {
        Task { try? await self.outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()))) }
    }

    /// Stops delivering and waits for a drain under way to end, so nothing is written after the socket closes.
    func stop() async {
        let drain = self.state.withLock { state in
            state.stopped = true
            return state.drain
        }
        drain?.cancel()
        await drain?.value
    }

    private func drainMailbox() async {
        do {
            while true {
                let after = self.state.withLock { state in
                    state.wokenDuringDrain = false
                    return state.lastSequence
                }
                let batch = try await self.mailboxes.messages(for: self.token, after: after, limit: Self.batchSize)
                for message in batch {
                    try await StreamSession.send(
                        .message(
                            DeliveredMessage(
                                seq: message.sequence,
                                receivedAt: message.receivedAt,
                                envelope: message.envelope
                            )
                        ),
                        to: self.outbound
                    )
                    self.state.withLock { $0.lastSequence = message.sequence }
                }
                self.metrics.messagesDelivered.increment(by: batch.count)
                let again = self.state.withLock { state in
                    let again = !state.stopped && (batch.count == Self.batchSize || state.wokenDuringDrain)
                    if !again { state.drain = nil }
                    return again
                }
                if !again { return }
            }
        } catch {
            let wasStopped = self.state.withLock { state in
                defer {
                    state.drain = nil
                    state.stopped = true
                }
                return state.stopped
            }
            if !wasStopped { try? await self.outbound.close(.unexpectedServerError, reason: "delivery failed") }
        }
    }
}
