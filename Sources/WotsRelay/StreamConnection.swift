import CoreMetrics
import HTTPTypes
import HummingbirdCore
import Logging
import NIOWebSocket
import Synchronization
import WotsCore
import WotsStorage

/// One `/v1/stream` socket's session (schema/stream.md), fed whole messages by its `StreamSocketHandler`:
/// authentication, then each client frame answered in order through a `ReplyLine`, while a `MailCourier` delivers
/// the account's mail.
///
/// Messages wait in an inbox, answered by a task that runs only while there are some and ends when the inbox is
/// empty; an idle socket holds no task. Reading pauses while `RelayConfiguration.streamMessagesWaiting` messages wait.
/// Messages read before the socket ended are still answered once it has a session: their sends and acknowledgements
/// take effect, and their replies go nowhere.
final class StreamConnection: Sendable {
    private struct OpenStream: Sendable {
        let token: Token
        let courier: MailCourier
        let directoryFeed: DirectoryFeed
        let replies: ReplyLine
        let unregister: @Sendable () -> Void
    }

    private enum Phase: Sendable {
        /// Before the session is known: the upgrade's `Authorization` header is being checked, or the `auth` frame
        /// is awaited.
        case authenticating
        case open(OpenStream)
        /// The socket closed, or its authentication failed: nothing more is read or delivered. With the session it
        /// had, the messages read before are still answered; without one, they are dropped.
        case ended(OpenStream?)
    }

    /// What waits to be answered, in frame order.
    private enum Waiting: Sendable {
        case message(StreamMessage)
        /// A frame that has its reply's place and was answered as far as it could be on the event loop.
        case unfinished(place: UInt64, finish: @Sendable () async -> StreamSession.Reply)
    }

    private struct State: Sendable {
        var phase = Phase.authenticating
        var inbox: [Waiting] = []
        var inboxStart = 0
        var isAnswering = false
        var isReadingPaused = false
        /// Whether a message came, before which the authentication deadline closes the socket.
        var hasReceived = false
        var watchdog: Task<Void, Never>?

        var waiting: Int { self.inbox.count - self.inboxStart }

        /// The next message with the phase to answer it in; nil, and no longer answering, when none waits.
        mutating func takeNext() -> (Waiting, Phase)? {
            guard self.inboxStart < self.inbox.count else {
                self.inbox.removeAll(keepingCapacity: false)
                self.inboxStart = 0
                self.isAnswering = false
                return nil
            }
            defer { self.inboxStart += 1 }
            return (self.inbox[self.inboxStart], self.phase)
        }
    }

    private let session: StreamSession
    private let writer: StreamWriter
    private let head: HTTPRequest
    private let logger: Logger
    private let resumeReading: @Sendable () -> Void
    private let state = Mutex(State())
    private var inboxLimit: Int { max(1, self.session.configuration.streamMessagesWaiting) }

    init(
        session: StreamSession,
        writer: StreamWriter,
        head: HTTPRequest,
        logger: Logger,
        resumeReading: @escaping @Sendable () -> Void
    ) {
        self.session = session
        self.writer = writer
        self.head = head
        self.logger = logger
        self.resumeReading = resumeReading
    }

    /// Checks the upgrade's `Authorization` header when it has one; otherwise the first frame must be `auth`, within
    /// the authentication timeout.
    func start() {
        if let bearer = SessionMiddleware.bearer(in: self.head.headerFields) {
            self.state.withLock { $0.isAnswering = true }
            Task {
                await self.authenticate(bearer: bearer)
                await self.answerWaiting()
            }
            return
        }
        let timeout = self.session.configuration.authenticationTimeout
        // The deadline is for the first frame to arrive, so the check is made on the state, not by cancelling: on a
        // busy relay the task answering that frame may start after the deadline passed.
        let watchdog = Task { [clock = self.session.clock, writer] in
            guard (try? await clock.sleep(timeout)) != nil, !self.state.withLock({ $0.hasReceived }) else { return }
            try? await writer.close(.policyViolation, reason: "no auth frame within \(timeout)")
        }
        self.state.withLock { $0.watchdog = watchdog }
    }

    /// A whole message from the client, answered after those before it. Called on the socket's event loop, where
    /// a message with nothing waiting before it is answered at once as far as it can be without suspending (a send
    /// or an acknowledgement is handed to the store); the rest waits for a task.
    /// - Returns: false when reading should pause until the waiting messages were answered.
    func received(_ message: StreamMessage) -> Bool {
        let inline = self.state.withLock { state -> OpenStream? in
            if case .ended = state.phase { return nil }
            if !state.hasReceived {
                state.hasReceived = true
                state.watchdog?.cancel()
                state.watchdog = nil
            }
            guard case .open(let stream) = state.phase, !state.isAnswering, state.waiting == 0 else { return nil }
            return stream
        }
        if let stream = inline, let place = stream.replies.tryPlace() {
            switch self.session.answer(
                to: message,
                from: stream.token,
                directoryFeed: stream.directoryFeed,
                writer: self.writer
            ) {
            case .reply(let reply):
                Self.deliver(reply, to: place, on: stream)
                return true
            case .unfinished(let finish):
                return self.wait(.unfinished(place: place, finish: finish))
            }
        }
        return self.wait(.message(message))
    }

    /// Queues `waiting` behind what waits already, answered by the task.
    private func wait(_ waiting: Waiting) -> Bool {
        let (startsAnswering, keepsReading) = self.state.withLock { state -> (Bool, Bool) in
            if case .ended(nil) = state.phase { return (false, true) }
            if case .ended = state.phase, case .message = waiting { return (false, true) }
            state.inbox.append(waiting)
            let startsAnswering = !state.isAnswering
            state.isAnswering = true
            if state.waiting >= self.inboxLimit { state.isReadingPaused = true }
            return (startsAnswering, !state.isReadingPaused)
        }
        if startsAnswering { Task { await self.answerWaiting() } }
        return keepsReading
    }

    /// The socket closed: delivery stops and the socket leaves the hub. A session still being opened ends as it opens.
    func ended() {
        let phase = self.state.withLock { state -> Phase in
            defer {
                if case .open(let stream) = state.phase { state.phase = .ended(stream) }
                if case .authenticating = state.phase { state.phase = .ended(nil) }
                state.watchdog?.cancel()
                state.watchdog = nil
            }
            return state.phase
        }
        guard case .open(let stream) = phase else { return }
        Task { await self.close(stream) }
    }

    private func answerWaiting() async {
        while let (waiting, phase) = self.takeNext() {
            switch (waiting, phase) {
            case (.message(let message), .authenticating): await self.authenticate(byFrame: message)
            case (.message(let message), .open(let stream)), (.message(let message), .ended(let stream?)):
                await self.answer(message, on: stream)
            case (.unfinished(let place, let finish), .open(let stream)),
                (.unfinished(let place, let finish), .ended(let stream?)):
                Self.deliver(await finish(), to: place, on: stream)
            case (_, .ended(nil)): return self.dropWaiting()
            case (.unfinished, .authenticating): return
            }
        }
    }

    /// Without a session nothing waiting can be answered.
    private func dropWaiting() {
        self.state.withLock { state in
            state.inbox.removeAll()
            state.inboxStart = 0
        }
    }

    private func takeNext() -> (Waiting, Phase)? {
        let (next, resumes) = self.state.withLock { state -> ((Waiting, Phase)?, Bool) in
            let next = state.takeNext()
            guard state.isReadingPaused, state.waiting <= self.inboxLimit / 2 else { return (next, false) }
            state.isReadingPaused = false
            return (next, true)
        }
        if resumes { self.resumeReading() }
        return next
    }

    private func answer(_ message: StreamMessage, on stream: OpenStream) async {
        let place = await stream.replies.place()
        let reply = await self.session.reply(
            to: message,
            from: stream.token,
            directoryFeed: stream.directoryFeed,
            writer: self.writer
        )
        Self.deliver(reply, to: place, on: stream)
    }

    private static func deliver(_ reply: StreamSession.Reply, to place: UInt64, on stream: OpenStream) {
        switch reply {
        case .now(let frame):
            stream.replies.answer(place, with: frame)
        case .later(let pending):
            pending.whenSettled { stream.replies.answer(place, with: (try? $0.get()) ?? StreamSession.lostReply) }
        }
    }

    private func authenticate(bearer: String) async {
        do {
            let changes = self.session.hub.accountChangesHeard
            await self.open(try await self.session.authenticator.grant(forSession: bearer), ref: nil, changes: changes)
        } catch {
            await self.refuse(error, ref: nil)
        }
    }

    private func authenticate(byFrame message: StreamMessage) async {
        var ref: String?
        do {
            let frame = try StreamSession.decode(message)
            ref = frame.ref
            guard case .auth(let session) = frame.body else {
                throw WotsError(.unauthenticated, "the first frame must be {\"type\": \"auth\", \"session\": …}")
            }
            let changes = self.session.hub.accountChangesHeard
            let grant = try await self.session.authenticator.grant(forSession: session)
            await self.open(grant, ref: frame.ref, changes: changes)
        } catch {
            await self.refuse(error, ref: ref ?? StreamSession.head(of: error)?.ref)
        }
    }

    /// Ends a stream whose authentication failed: an `error` frame saying why, then a 1008 close.
    private func refuse(_ error: any Error, ref: String?) async {
        let refusal = StreamSession.refusal(for: error)
        self.state.withLock { $0.phase = .ended(nil) }
        try? await self.writer.send(.error(ref: ref, id: nil, code: refusal.code, message: refusal.message))
        try? await self.writer.close(.policyViolation, reason: "authentication required")
    }

    /// - Parameter changes: the hub's count of account changes heard before the session was looked up.
    private func open(_ grant: SessionGrant, ref: String?, changes: UInt64) async {
        let groups: (any GroupMailboxRepository)?
        do {
            groups = try StreamSession.wantsGroups(URI(self.head.path ?? "/")) ? try self.session.groupMailboxes() : nil
        } catch {
            let refusal = Refusal(error)
            self.state.withLock { $0.phase = .ended(nil) }
            try? await self.writer.send(.error(ref: ref, id: nil, code: refusal.code, message: refusal.message))
            try? await self.writer.close(.policyViolation, reason: refusal.code.name)
            return
        }
        guard (try? await self.writer.send(.ready(ref: ref, token: grant.token))) != nil else {
            self.state.withLock { $0.phase = .ended(nil) }
            return
        }
        self.session.metrics.openConnections.increment()
        self.logger.debug("stream opened")
        let courier = self.session.makeCourier(for: grant, groups: groups, writer: self.writer)
        let stream = OpenStream(
            token: grant.token,
            courier: courier,
            directoryFeed: DirectoryFeed(bus: self.session.bus),
            replies: ReplyLine(writer: self.writer, limit: StreamSession.repliesInFlight),
            unregister: self.session.hub.register(courier)
        )
        courier.opened()
        let hasEnded = self.state.withLock { state -> Bool in
            guard case .ended = state.phase else {
                state.phase = .open(stream)
                return false
            }
            state.phase = .ended(stream)
            return true
        }
        if hasEnded {
            await self.close(stream)
            return
        }
        // A change heard since the session was looked up may have found no socket of this account to close.
        if self.session.hub.accountChangesHeard != changes {
            await StreamRevoker.checkStanding(of: courier, in: self.session.authenticator.storage)
        }
    }

    private func close(_ stream: OpenStream) async {
        stream.directoryFeed.end()
        await stream.courier.stop()
        stream.unregister()
        self.session.metrics.openConnections.decrement()
        self.logger.debug("stream closed")
    }
}
