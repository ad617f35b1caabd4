import Foundation
public import WotsCore

extension ConversationKeeper {
    /// Queues a `delivered` receipt for a group message this client stored: it goes, with the next flush, to the
    /// message's sender alone, as a 1:1 receipt naming (sender, id) (SECURITY.md, "Receipts in groups").
    func queueDelivered(groupMessage key: MessageKey) {
        guard key.sender != self.unlocked.token else { return }
        self.pendingGroup[.delivered, default: [:]][key.sender, default: []].append(key)
    }

    /// Records that a person saw a group message: a `read` receipt goes to its sender with the next flush, unless
    /// read receipts are off.
    public func markRead(groupMessage key: MessageKey) {
        guard self.sendsReadReceipts, key.sender != self.unlocked.token else { return }
        self.pendingGroup[.read, default: [:]][key.sender, default: []].append(key)
    }

    /// How far each of these group messages this account sent got with its members.
    func deliveries(_ keys: [MessageKey]) throws -> [GroupDelivery] {
        try keys.compactMap { key in
            guard let entry = try self.history.entry(key) else { return nil }
            return GroupDelivery(
                key: key,
                group: try GroupID(bytes: entry.peer.bytes),
                statuses: try self.history.memberStatuses(of: key)
            )
        }
    }
}
