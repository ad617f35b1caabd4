import Foundation
public import WotsCore

extension Messenger {
    /// An interactive group conversation: takes in the group mailbox, then every line from `input` is sent to the
    /// group's other members while the live stream (opened with `?groups=true`) brings the group's messages and
    /// membership changes to `event` as they arrive. Ends when the input ends.
    ///
    /// Group slots of other groups are taken in and kept for `wots inbox`; 1:1 messages are left in the mailbox.
    /// - Parameters:
    ///   - group: the group's name or an id prefix.
    ///   - input: opens the input; called only once the account is unlocked and the group found.
    ///   - sent: told each line the relay took.
    ///   - failed: called when a line could not be sent (the chat goes on).
    /// - Throws: `not_found` / `invalid_input` for the group, what the stream throws.
    public func groupChat(
        _ group: String,
        input: @Sendable () -> AsyncStream<ChatInput>,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        event: @escaping @Sendable (GroupEvent) async throws -> Void,
        sent: @escaping @Sendable (SentGroupMessage) -> Void = { _ in },
        failed: @escaping @Sendable (WotsError) -> Void
    ) async throws {
        let unlocked = try await self.unlock()
        try await self.syncGroups(unlocked)
        let session = try GroupSession(
            messenger: self,
            unlocked: unlocked,
            group: try self.store.groupBook().resolve(group).current.id
        )
        let stream = StreamClient(relay: self.relay, logger: self.logger)
        let lines = input()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await stream.run(
                    status: status,
                    handleGroup: { delivered in
                        let taken = try await session.take(delivered)
                        if let shown = taken.event { try await event(shown) }
                        return taken.acknowledge
                    },
                    handle: { _ in false }
                )
            }
            tasks.addTask {
                for await item in lines {
                    guard case .line(let line) = item else { continue }
                    let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { continue }
                    do {
                        sent(try await session.send(text))
                    } catch let error as WotsError {
                        failed(error)
                    }
                }
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }
}
