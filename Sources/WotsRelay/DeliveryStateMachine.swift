import WotsCore
import WotsStorage

/// Delivery of one recipient's mail to one socket, as a value: events in, actions out. `MailCourier` performs the
/// actions; this type holds every rule and is tested without sockets, tasks or sleeps.
///
/// A message moves queued (in the mailbox) → sent (on this socket, unacknowledged) → acknowledged (gone). At most
/// one read or send is under way at a time. Messages this process just stored are offered and sent straight away
/// when they continue the sequence the socket has reached; a gap, a wake-up or too many offers make it read the
/// mailbox instead, so nothing is skipped and nothing is sent twice on one socket. Back-pressure: at most
/// `maximumUnacknowledged` messages are sent ahead of the client's acknowledgements. Time is a `Duration` since an
/// origin the caller chooses (its clock's), given with each event that needs it: pings keep an idle socket alive,
/// and resyncs re-read the mailbox where other processes' notifications can be lost.
struct DeliveryStateMachine: Sendable {
    struct Settings: Sendable {
        /// Most messages one mailbox read returns.
        var batchSize = 100
        /// Most offered messages held while a read or send is under way; past that the mailbox is read instead.
        var maximumOffered = 128
        /// Most messages sent and not yet acknowledged.
        var maximumUnacknowledged = 1_000
        /// A ping is due when nothing was sent for this long; nil: no pings.
        var pingInterval: Duration? = nil
        /// The mailbox is re-read this often even without a wake-up; nil: never.
        var resyncInterval: Duration? = nil
    }

    enum Action: Sendable, Equatable {
        case read(after: Int64, limit: Int)
        case send([StreamMail])
        case ping
        /// Wake the machine (`wake()`) after this long: a mailbox read failed and is tried again then.
        case retry(after: Duration)
        case none
    }

    /// First pause after a failed mailbox read, doubled after each failure in a row up to `maximumRetryPause`.
    static let firstRetryPause: Duration = .milliseconds(500)
    static let maximumRetryPause: Duration = .seconds(8)

    private enum Activity: Sendable { case idle, reading, sending }

    let settings: Settings
    /// The highest sequence sent on this socket.
    private(set) var lastSent: Int64 = 0
    /// Sent on this socket, not yet acknowledged.
    private(set) var unacknowledged: Set<MessageKey> = []
    private var offered: [StreamMail] = []
    private var readWanted = false
    private var activity = Activity.idle
    private(set) var isStopped = false
    private var nextPing: Duration?
    private var nextResync: Duration?
    private var retryPause = Self.firstRetryPause
    private var isWaitingToRetry = false

    init(settings: Settings, now: Duration) {
        self.settings = settings
        self.nextPing = settings.pingInterval.map { now + $0 }
        self.nextResync = settings.resyncInterval.map { now + $0 }
    }

    /// The socket is authenticated: send what is queued.
    mutating func opened() -> Action { self.wake() }

    /// Something may have arrived (another process stored mail, a retried send was found stored): read the mailbox.
    mutating func wake() -> Action {
        self.readWanted = true
        self.isWaitingToRetry = false
        return self.next()
    }

    /// A mailbox read failed (the database is away): the socket stays open, live offers still go out, and the read
    /// is tried again after a pause that grows while it keeps failing.
    mutating func readFailed() -> Action {
        self.activity = .idle
        self.readWanted = true
        guard !self.isStopped else { return .none }
        self.isWaitingToRetry = true
        defer { self.retryPause = min(self.retryPause * 2, Self.maximumRetryPause) }
        return .retry(after: self.retryPause)
    }

    /// A message or group slot this process just stored for this socket's recipient.
    mutating func offer(_ message: StreamMail) -> Action {
        if self.offered.count < self.settings.maximumOffered {
            self.offered.append(message)
        } else {
            self.offered.removeAll()
            self.readWanted = true
        }
        return self.next()
    }

    /// A mailbox read asked for by `.read` returned `batch`.
    mutating func readFinished(_ batch: [StreamMail], limit: Int) -> Action {
        self.activity = .idle
        self.retryPause = Self.firstRetryPause
        // A full page may have more behind it.
        if batch.count == limit { self.readWanted = true }
        let unsent = batch.filter { $0.sequence > self.lastSent }
        guard !unsent.isEmpty, !self.isStopped else { return self.next() }
        self.activity = .sending
        return .send(unsent)
    }

    /// A send asked for by `.send` was written to the socket.
    mutating func sendFinished(_ sent: [StreamMail], now: Duration) -> Action {
        self.activity = .idle
        for message in sent {
            self.lastSent = max(self.lastSent, message.sequence)
            self.unacknowledged.insert(message.key)
        }
        if let interval = self.settings.pingInterval { self.nextPing = now + interval }
        return self.next()
    }

    /// The client acknowledged these messages (on this socket, or over HTTP in this process).
    mutating func acknowledged(_ keys: [MessageKey]) -> Action {
        self.unacknowledged.subtract(keys)
        return self.next()
    }

    /// Time passed: whatever is due now, a ping and a resync read among them.
    mutating func tick(now: Duration) -> [Action] {
        guard !self.isStopped else { return [] }
        var actions: [Action] = []
        if let due = self.nextPing, now >= due, let interval = self.settings.pingInterval {
            self.nextPing = now + interval
            actions.append(.ping)
        }
        if let due = self.nextResync, now >= due, let interval = self.settings.resyncInterval {
            self.nextResync = now + interval
            let action = self.wake()
            if action != .none { actions.append(action) }
        }
        return actions
    }

    /// The socket is closing: nothing more is asked for.
    mutating func stop() {
        self.isStopped = true
        self.offered.removeAll()
    }

    /// What to do next when nothing is under way.
    private mutating func next() -> Action {
        guard !self.isStopped, self.activity == .idle else { return .none }
        let room = self.settings.maximumUnacknowledged - self.unacknowledged.count
        guard room > 0 else { return .none }
        let fresh = self.offered.filter { $0.sequence > self.lastSent }.sorted { $0.sequence < $1.sequence }
        self.offered.removeAll()
        let continuesTheSequence = fresh.enumerated().allSatisfy { $1.sequence == self.lastSent + 1 + Int64($0) }
        if !self.readWanted, !fresh.isEmpty, continuesTheSequence {
            if fresh.count > room { self.readWanted = true }
            self.activity = .sending
            return .send(Array(fresh.prefix(room)))
        }
        guard self.readWanted || !fresh.isEmpty else { return .none }
        // While a failed read waits for its retry nothing goes out: what was offered is read back once reads work.
        guard !self.isWaitingToRetry else {
            self.readWanted = true
            return .none
        }
        self.readWanted = false
        self.activity = .reading
        return .read(after: self.lastSent, limit: min(self.settings.batchSize, room))
    }
}
