public import Logging
import PostgresNIO
public import ServiceLifecycle
import Synchronization
public import WotsCore
import WotsStorage

/// Fans mail appended by other relay processes out to this process: `LISTEN wots_mail` on one pooled connection,
/// and a `MailArrived` on the event bus for each notification another node sent.
///
/// Account changes travel the same channel both ways: this process's `AccountChanged` events are sent to the other
/// nodes, and theirs are published here, so no relay keeps using a rotated key or an ended session. Whenever
/// listening (re)starts, an `AccountChanged` for every account is published, since changes sent while this node
/// was not listening are lost.
///
/// This process's own appends are skipped (their payload carries this database's `nodeID`): the relay publishes
/// those itself. Notifications are not stored by PostgreSQL, so any sent while the connection is down are lost;
/// mail itself is durable and clients catch up by reading their mailbox. After a lost connection it listens again,
/// waiting `retryDelay` between attempts. Runs until cancelled or a graceful shutdown.
public final class PostgresMailNotifications: Service, Sendable {
    private let database: PostgresDatabase
    private let eventBus: EventBus
    private let logger: Logger
    private let retryDelay: Duration
    private let listening = Mutex(false)

    /// - Parameters:
    ///   - database: the database whose notifications to follow; its `run()` must be running too.
    ///   - eventBus: where `MailArrived` events are published.
    ///   - logger: receives connection losses and reconnects.
    ///   - retryDelay: the pause before listening again after a failure. Default one second.
    public init(database: PostgresDatabase, eventBus: EventBus, logger: Logger, retryDelay: Duration = .seconds(1)) {
        self.database = database
        self.eventBus = eventBus
        self.logger = logger
        self.retryDelay = retryDelay
    }

    /// Whether `LISTEN` is active right now, so notifications sent from now on will arrive.
    public var isListening: Bool { self.listening.withLock { $0 } }

    /// Listens until the task is cancelled or a graceful shutdown is triggered.
    public func run() async throws {
        let localChanges = self.eventBus.subscribe(to: AccountChanged.self, bufferSize: 65_536)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.forward(localChanges) }
                await self.listenUntilCancelled()
                group.cancelAll()
            }
        }
    }

    private func forward(_ changes: EventSubscription<AccountChanged>) async {
        for await change in changes where !change.isFromAnotherProcess {
            guard let token = change.token else { continue }
            let notification = AccountNotification(nodeID: self.database.nodeID, token: token)
            self.database.outgoingNotifications.send([notification.payload])
        }
    }

    private func listenUntilCancelled() async {
        while !Task.isCancelled {
            do {
                try await self.database.client.withConnection { connection in
                    try await connection.listen(on: PostgresMailboxRepository.notificationChannel) { notifications in
                        self.listening.withLock { $0 = true }
                        self.eventBus.publish(AccountChanged(token: nil, isFromAnotherProcess: true))
                        self.logger.debug("listening for mail from other relay nodes")
                        for try await notification in notifications {
                            self.deliver(notification.payload)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                let mapped = WotsError.mapping(error, operation: "listen for new mail")
                // The listening connection is the canary of the pool: when it dies the others likely died with it,
                // and telling the health record lets the probe replace the pool now instead of at a deadline.
                self.database.health.record(.failure(mapped))
                self.logger.warning(
                    "lost the PostgreSQL notification connection; listening again",
                    metadata: ["error": "\(mapped)"]
                )
            }
            self.listening.withLock { $0 = false }
            if Task.isCancelled { break }
            try? await Task.sleep(for: self.retryDelay)
        }
        self.listening.withLock { $0 = false }
    }

    private func deliver(_ payload: String) {
        if let change = AccountNotification(payload: payload) {
            guard change.nodeID != self.database.nodeID else { return }
            self.eventBus.publish(AccountChanged(token: change.token, isFromAnotherProcess: true))
            return
        }
        guard let notification = MailNotification(payload: payload) else {
            self.logger.debug(
                "ignored a notification that is not Wots mail",
                metadata: ["bytes": "\(payload.utf8.count)"]
            )
            return
        }
        guard notification.nodeID != self.database.nodeID else { return }
        self.eventBus.publish(MailArrived(recipient: notification.recipient, sequence: notification.sequence))
    }
}
