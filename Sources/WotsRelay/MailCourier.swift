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
///
/// Messages this process just stored are offered directly: when they continue the sequence the socket has reached,
/// they are sent without reading them back; otherwise (a gap, a wake-up, too many waiting) the mailbox is read.
final class MailCourier: Sendable {
    static let batchSize = 100
    /// Most offered messages kept for one socket; past that it reads its mailbox instead.
    static let maximumOffered = 128

    private struct State {
        var lastSequence: Int64 = 0
        var drain: Task<Void, Never>?
        var needsRead = false
        var offered: [MailboxMessage] = []
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

    /// Makes the next drain read the mailbox.
    func wake() {
        self.state.withLock { state in
            state.needsRead = true
            self.startDrain(&state)
        }
    }

    /// A message this process just stored for this socket's token.
    func offer(_ message: MailboxMessage) {
        self.state.withLock { state in
            if state.offered.count < Self.maximumOffered {
                state.offered.append(message)
            } else {
                state.offered.removeAll()
                state.needsRead = true
            }
            self.startDrain(&state)
        }
    }

    private func startDrain(_ state: inout State) {
        guard !state.stopped, state.drain == nil else { return }
        state.drain = Task { await self.drainMailbox() }
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
                let (after, offered, needsRead) = self.state.withLock { state in
                    defer {
                        state.offered.removeAll()
                        state.needsRead = false
                    }
                    return (state.lastSequence, state.offered, state.needsRead)
                }
                let fresh = offered.filter { $0.sequence > after }.sorted { $0.sequence < $1.sequence }
                let continuesTheSequence = fresh.enumerated().allSatisfy { $1.sequence == after + 1 + Int64($0) }
                let readsTheMailbox = needsRead || !continuesTheSequence
                let batch =
                    readsTheMailbox
                    ? try await self.mailboxes.messages(for: self.token, after: after, limit: Self.batchSize) : fresh
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
                    // A full page read from the mailbox may have more behind it.
                    if readsTheMailbox && batch.count == Self.batchSize { state.needsRead = true }
                    let again = !state.stopped && (state.needsRead || !state.offered.isEmpty)
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
