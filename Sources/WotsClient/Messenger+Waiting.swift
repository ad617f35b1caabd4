public import Foundation
import WotsCore

extension Messenger {
    /// Waits on the live stream until the recipient's client confirms it stored the message `id` this account sent
    /// (a `delivered` or `read` receipt), or `timeout` passes. Only receipts are taken from the mailbox meanwhile;
    /// every other message stays there for `inbox`, `listen` or `chat`.
    /// - Returns: the status reached (`delivered` or `read`), or nil when the time ran out.
    public func waitForDelivery(of id: UUID, timeout: Duration) async throws -> HistoryEntry.Status? {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: false)
        let key = MessageKey(sender: unlocked.token, id: id)
        if let status = try keeper.history.entry(key)?.status, status >= .delivered { return status }
        let state = try self.listenerState(for: unlocked)
        let stream = StreamClient(relay: self.relay, logger: self.logger)
        let (confirmations, confirm) = AsyncStream.makeStream(of: HistoryEntry.Status.self)
        return try await withThrowingTaskGroup(of: HistoryEntry.Status?.self) { group in
            group.addTask {
                try await stream.run(status: { _ in }) { delivered in
                    guard let message = try await state.open(delivered) else { return true }
                    guard case .receipt = message.body?.content else { return false }
                    if case .status(let keys, let status, _) = try await keeper.receive(message), keys.contains(key) {
                        confirm.yield(status)
                    }
                    try await state.markSeen(message.key)
                    return true
                }
                return nil
            }
            group.addTask {
                for await status in confirmations { return status }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            confirm.finish()
            return first
        }
    }
}
