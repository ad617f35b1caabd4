import CoreMetrics
import Foundation
import WotsCore
import WotsStorage

/// Acknowledgements, the same on both transports: checks the limit, deletes, and tells the caller's open sockets so
/// their delivery window moves on.
struct MailboxAcknowledger: Sendable {
    let storage: RelayStorage
    let hub: DeliveryHub
    let metrics: RelayMetrics

    /// Deletes these messages and group slots from `token`'s mailbox: one acknowledgement by (sender, id) reaches
    /// both, whichever endpoint or frame carried it.
    /// - Returns: the keys whose messages were deleted now, in the order given.
    /// - Throws: `too_many_ids` past `AcknowledgeRequest.maximumCount` keys (nothing is deleted then), or the
    ///   storage failure.
    func acknowledge(_ keys: [MessageKey], for token: Token) async throws -> [MessageKey] {
        guard keys.count <= AcknowledgeRequest.maximumCount else {
            throw WotsError(
                .tooManyIDs,
                "at most \(AcknowledgeRequest.maximumCount) messages per acknowledgement, got \(keys.count)"
            )
        }
        let now = Date()
        var deleted = Set(try await self.storage.mailboxes.acknowledge(keys, for: token, at: now))
        let rest = keys.filter { !deleted.contains($0) }
        if !rest.isEmpty {
            deleted.formUnion(try await self.storage.groupMailboxes().acknowledgeGroup(rest, for: token, at: now))
        }
        self.metrics.messagesAcknowledged.increment(by: deleted.count)
        self.hub.acknowledged(keys, by: token)
        var answered: Set<MessageKey> = []
        return keys.filter { deleted.contains($0) && answered.insert($0).inserted }
    }
}
