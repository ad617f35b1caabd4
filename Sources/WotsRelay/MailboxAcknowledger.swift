import CoreMetrics
import Foundation
import WotsCore
import WotsStorage

/// Acknowledgements, the same on both transports: checks the limit, deletes, and tells the caller's open sockets so
/// their delivery window moves on.
final class MailboxAcknowledger: Sendable {
    let storage: RelayStorage
    let hub: DeliveryHub
    let metrics: RelayMetrics

    init(storage: RelayStorage, hub: DeliveryHub, metrics: RelayMetrics) {
        self.storage = storage
        self.hub = hub
        self.metrics = metrics
    }

    /// Deletes these messages and group slots from `token`'s mailbox: one acknowledgement by (sender, id) reaches
    /// both, whichever endpoint or frame carried it.
    /// - Returns: the keys whose messages were deleted now, in the order given.
    /// - Throws: `too_many_ids` past `AcknowledgeRequest.maximumCount` keys (nothing is deleted then), or the
    ///   storage failure.
    func acknowledge(_ keys: [MessageKey], for token: Token) async throws -> [MessageKey] {
        try await self.enqueue(keys, for: token).outcome()
    }

    /// `acknowledge` in two steps: returns once the store has taken the acknowledgement in order after the sends
    /// it has taken (so a message acknowledged before its own commit is never written as waiting); the outcome comes
    /// once it committed.
    /// - Throws: `too_many_ids` (nothing is deleted then).
    func enqueue(_ keys: [MessageKey], for token: Token) async throws -> PendingWrite<[MessageKey]> {
        try Self.checkCount(keys)
        let now = Date()
        return self.settle(
            try await self.storage.mailboxes.enqueueAcknowledge(keys, for: token, at: now),
            keys,
            token,
            now
        )
    }

    /// `enqueue` without suspending, for a socket's event loop: nil when the store must wait first, and then nothing
    /// was done.
    /// - Throws: `too_many_ids` (nothing is deleted then).
    func enqueueNow(_ keys: [MessageKey], for token: Token) throws -> PendingWrite<[MessageKey]>? {
        try Self.checkCount(keys)
        let now = Date()
        guard let direct = try self.storage.mailboxes.enqueueAcknowledgeNow(keys, for: token, at: now) else {
            return nil
        }
        return self.settle(direct, keys, token, now)
    }

    private static func checkCount(_ keys: [MessageKey]) throws {
        guard keys.count <= AcknowledgeRequest.maximumCount else {
            throw WotsError(
                .tooManyIDs,
                "at most \(AcknowledgeRequest.maximumCount) messages per acknowledgement, got \(keys.count)"
            )
        }
    }

    /// The answer once the 1:1 store settled `direct`, and the group store any keys it did not hold.
    private func settle(_ direct: PendingWrite<[MessageKey]>, _ keys: [MessageKey], _ token: Token, _ now: Date)
        -> PendingWrite<[MessageKey]>
    {
        let answer = PendingWrite<[MessageKey]>()
        let (storage, hub, metrics) = (self.storage, self.hub, self.metrics)
        @Sendable func finish(_ deleted: Set<MessageKey>) {
            metrics.messagesAcknowledged.increment(by: deleted.count)
            hub.acknowledged(keys, by: token)
            var answered: Set<MessageKey> = []
            answer.settle(.success(keys.filter { deleted.contains($0) && answered.insert($0).inserted }))
        }
        direct.whenSettled { outcome in
            let deleted: Set<MessageKey>
            do {
                deleted = Set(try outcome.get())
            } catch {
                answer.settle(.failure(error))
                return
            }
            // The group store is asked only for the keys the 1:1 store did not hold.
            let rest = keys.filter { !deleted.contains($0) }
            guard !rest.isEmpty else { return finish(deleted) }
            Task {
                do {
                    finish(
                        deleted.union(try await storage.groupMailboxes().acknowledgeGroup(rest, for: token, at: now))
                    )
                } catch {
                    answer.settle(.failure(error))
                }
            }
        }
        return answer
    }
}
