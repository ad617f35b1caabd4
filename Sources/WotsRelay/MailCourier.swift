import CoreMetrics
import Foundation
import NIOCore
import NIOWebSocket
import Synchronization
import WotsCore
import WotsStorage

/// Performs one socket's `DeliveryStateMachine`: reads the mailbox and writes frames when the machine says so.
///
/// An idle socket holds no task. Sends need none: offered messages are encoded by whoever offered them and written
/// through the socket's outbox, and what is offered while a send waits for the event loop goes in the next batch. A
/// mailbox read runs in a task of its own while it lasts. A failed mailbox read is tried again after a pause, with
/// the socket open; a failed write closes the socket, and the client reconnects and gets its mail from the mailbox.
final class MailCourier: Sendable {
    let token: Token
    /// The session the socket was opened with; the socket is closed when it ends.
    let session: SessionGrant
    private let sessionEnding = Mutex(false)
    private let mailboxes: any MailboxRepository
    /// Where group slots are read from; nil when the socket did not ask for them (`?groups=true`).
    private let groups: (any GroupMailboxRepository)?
    private let metrics: RelayMetrics
    private let writer: StreamWriter
    private let clock: RelayClock
    private var now: @Sendable () -> Duration { self.clock.now }
    private let machine: Mutex<DeliveryStateMachine>
    /// The task doing the machine's mailbox read, while one runs: a finished task is let go at once, since it keeps
    /// the memory of its deepest call until then, and idle sockets are most of a relay's sockets.
    private let worker = Mutex(Worker())

    /// - Parameter now: the time on the clock the machine's settings count in.
    init(
        session: SessionGrant,
        settings: DeliveryStateMachine.Settings,
        mailboxes: any MailboxRepository,
        groups: (any GroupMailboxRepository)?,
        metrics: RelayMetrics,
        writer: StreamWriter,
        clock: RelayClock
    ) {
        self.token = session.token
        self.session = session
        self.mailboxes = mailboxes
        self.groups = groups
        self.metrics = metrics
        self.writer = writer
        self.clock = clock
        let now = clock.now
        self.machine = Mutex(DeliveryStateMachine(settings: settings, now: now()))
    }

    func opened() { self.perform(self.machine.withLock { $0.opened() }) }
    func wake() { self.perform(self.machine.withLock { $0.wake() }) }
    /// A message or group slot this process just stored; group slots only reach sockets that asked for them.
    func offer(_ mail: StreamMail) {
        if case .group = mail, self.groups == nil { return }
        self.perform(self.machine.withLock { $0.offer(mail) })
    }
    func acknowledged(_ keys: [MessageKey]) { self.perform(self.machine.withLock { $0.acknowledged(keys) }) }

    /// Writes an ephemeral message now, beside the delivery machine: it has no sequence and is never acknowledged.
    /// - Returns: false when the socket is closing and was not handed it.
    func passOn(_ envelope: Envelope, receivedAt: Date) -> Bool {
        guard !self.machine.withLock({ $0.isStopped }) else { return false }
        self.writer.post(.ephemeralMessage(receivedAt: receivedAt, envelope: envelope))
        return true
    }

    /// Writes the caller's slot of an ephemeral group message now, when the socket asked for groups.
    /// - Returns: false when the socket did not ask for groups or is closing, and was not handed it.
    func passOnGroup(_ body: GroupEnvelope, slot: [UInt8], receivedAt: Date) -> Bool {
        guard self.groups != nil, !self.machine.withLock({ $0.isStopped }) else { return false }
        self.writer.post(.ephemeralGroupMessage(receivedAt: receivedAt, body: body, slot: slot))
        return true
    }

    /// Called by the relay-wide timer: pings and resyncs that are due, and the close once the session expired.
    func tick() {
        if self.clock.date() >= self.session.expiresAt {
            self.endSession(WotsError(.invalidSession, "the session expired; log in again"))
            return
        }
        let now = self.now()
        for action in self.machine.withLock({ $0.tick(now: now) }) { self.perform(action) }
    }

    /// Closes the socket because its session ended (expired, or deleted when the account's keys were rotated): a
    /// stream is worth no more than the session that opened it. Once, however often it is called.
    func endSession(_ error: WotsError) {
        guard
            self.sessionEnding.withLock({ ending in
                defer { ending = true }; return !ending
            })
        else { return }
        Task { await self.revoke(error) }
    }

    /// Stops delivering and waits for a mailbox read under way to end, so nothing more is sent once this returns (a
    /// send already in the outbox goes before anything written after it).
    func stop() async {
        self.machine.withLock { $0.stop() }
        let worker = self.worker.withLock { $0.task }
        worker?.cancel()
        await worker?.value
    }

    /// Ends the socket because its account may no longer use it: stops delivery, sends an `error` frame saying why,
    /// and closes with 1008 (policy violation).
    func revoke(_ error: WotsError) async {
        await self.stop()
        let refusal = Refusal(error)
        try? await self.writer.send(.error(ref: nil, id: nil, code: refusal.code, message: refusal.message))
        try? await self.writer.close(.policyViolation, reason: refusal.code.name)
    }

    private func perform(_ action: DeliveryStateMachine.Action) {
        switch action {
        case .none:
            return
        case .ping:
            self.writer.ping()
        case .retry(let pause):
            Task { [clock] in
                guard (try? await clock.sleep(pause)) != nil else { return }
                self.wake()
            }
        case .send(let offered):
            self.send(offered)
        case .read(let after, let limit):
            // The machine asks for one read or send at a time, so at most one read task runs.
            self.worker.withLock { worker in
                worker.number &+= 1
                let number = worker.number
                worker.task = Task {
                    await self.readMailbox(after: after, limit: limit)
                    self.worker.withLock { if $0.number == number { $0.task = nil } }
                }
            }
        }
    }

    /// Writes the messages through the socket's outbox, without a task: what is offered while the write waits for
    /// the event loop joins the next batch, and the machine hears of the write from the event loop once the kernel
    /// took it.
    private func send(_ offered: [StreamMail]) {
        // A message offered or read a while ago may have reached its expiresAt since: it is never sent.
        let date = self.clock.date()
        let messages = offered.filter { !$0.hasExpired(at: date) }
        let frames: [WebSocketFrame]
        do {
            frames = try self.writer.encode(messages.map(\.frame))
        } catch {
            return self.failed()
        }
        self.writer.write(frames).whenComplete { result in
            guard case .success = result else { return self.failed() }
            self.metrics.messagesDelivered.increment(by: messages.count)
            let now = self.now()
            self.perform(self.machine.withLock { $0.sendFinished(messages, now: now) })
        }
    }

    private func readMailbox(after: Int64, limit: Int) async {
        let action: DeliveryStateMachine.Action
        do {
            let batch = try await self.read(after: after, limit: limit)
            action = self.machine.withLock { $0.readFinished(batch, limit: limit) }
        } catch let error as WotsError where error.code == .storageUnavailable {
            action = self.machine.withLock { $0.readFailed() }
        } catch {
            return self.failed()
        }
        self.perform(action)
    }

    /// A read or write failed in a way a retry does not mend: the socket is closed, and the client reconnects and
    /// gets its mail from the mailbox.
    private func failed() {
        let wasStopped = self.machine.withLock { machine in
            defer { machine.stop() }
            return machine.isStopped
        }
        guard !wasStopped else { return }
        Task { try? await self.writer.close(.unexpectedServerError, reason: "delivery failed") }
    }

    /// The mailbox after `after`: 1:1 messages, and group slots when the socket asked for them, in sequence order.
    private func read(after: Int64, limit: Int) async throws -> [StreamMail] {
        let date = self.clock.date()
        let direct = try await self.mailboxes.messages(for: self.token, after: after, limit: limit, at: date)
        guard let groups = self.groups else { return direct.map(StreamMail.direct) }
        let group = try await groups.groupMessages(for: self.token, after: after, limit: limit, at: date)
        return StreamMail.merged(direct, group, limit: limit)
    }
}

/// The current worker task and a number telling it from the ones before.
private struct Worker {
    var number: UInt64 = 0
    var task: Task<Void, Never>?
}
