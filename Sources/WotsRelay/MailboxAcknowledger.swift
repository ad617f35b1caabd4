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

    /// Deletes these messages from `token`'s mailbox.
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
        let deleted = try await self.storage.mailboxes.acknowledge(keys, for: token, at: Date())
        self.metrics.messagesAcknowledged.increment(by: deleted.count)
        self.hub.acknowledged(keys, by: token)
        return deleted
    }
}
