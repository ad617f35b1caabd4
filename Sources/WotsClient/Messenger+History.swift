import Foundation
public import WotsCore

extension Messenger {
    /// Opens this account's history with the unlocked account's secret-derived keys, deleting what expired.
    func openHistory(_ unlocked: Unlocked) throws -> ConversationHistory {
        try self.store.prepareHome()
        return try ConversationHistory(folder: self.store.home, account: unlocked.token, keys: unlocked.keys)
    }

    /// The conversation with `nickname` (a pinned contact), oldest first; messages whose disappearing timer ran out
    /// are deleted first and only counted.
    /// - Parameter search: keep only messages whose text, attachment name or caption contains it (ignoring case);
    ///   searched in memory after decryption.
    /// - Returns: the messages and how many disappeared now.
    /// - Throws: `WotsError.unknownNickname` when `nickname` is not a contact, `.wrongSecret`.
    public func history(with nickname: Nickname, search: String? = nil) async throws -> (
        items: [HistoryItem], expired: Int
    ) {
        let unlocked = try await self.unlock()
        guard let contact = try self.store.contactBook().contact(named: nickname) else {
            throw WotsError(.unknownNickname, "no conversation with \(nickname): not a contact on this machine")
        }
        let history = try self.openHistory(unlocked)
        let expired = try self.removeExpired(from: history, now: self.configuration.now()).count
        let items = try history.entries(with: contact.token).map { entry in
            HistoryItem(entry, from: entry.isOutgoing ? unlocked.profile.nickname : contact.nickname)
        }
        guard let search, !search.isEmpty else { return (items, expired) }
        return (items.filter { $0.matches(search) }, expired)
    }

    /// Deletes expired messages from the history and the other local stores (the outbox's sealed copies).
    /// - Returns: the keys of the messages deleted.
    func removeExpired(from history: ConversationHistory, now: Date) throws -> [MessageKey] {
        let gone = try history.deleteExpired(now: now).map(\.key)
        guard !gone.isEmpty else { return [] }
        var outbox = try self.store.outbox()
        if outbox.remove(gone.map(\.id)) { try self.store.save(outbox) }
        return gone
    }
}
