import Foundation
public import WotsCore

extension Messenger {
    /// An interactive conversation: every line from `input` is sent to `nickname`, while incoming messages stream
    /// to `show`. Ends when the input ends.
    /// - Parameters:
    ///   - input: opens the lines to send; called only once the recipient is looked up and the account unlocked, so
    ///     nothing typed before (the secret above all) can be read as a chat line.
    ///   - sent: called after each line was accepted by the relay.
    ///   - failed: called when a line could not be sent (the chat goes on).
    public func chat(
        with nickname: Nickname,
        input: @Sendable () -> AsyncStream<String>,
        status: @escaping @Sendable (StreamClient.Status) -> Void,
        show: @escaping @Sendable (ReceivedMessage) async throws -> Void,
        sent: @escaping @Sendable (SentMessage) -> Void,
        failed: @escaping @Sendable (WotsError) -> Void,
        expired: @escaping @Sendable (ExpiredMessage) async throws -> Void = { _ in }
    ) async throws {
        let recipient = try await self.recipient(nickname)
        let unlocked = try await self.unlock()
        try await self.reportExpiredMessages(to: expired)
        let state = try self.listenerState(for: unlocked)
        let stream = StreamClient(relay: self.relay, logger: self.logger)
        let lines = input()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await stream.run(status: status) { delivered in
                    guard let message = try await state.open(delivered) else { return true }
                    try await show(message)
                    if message.acknowledge { try await state.markSeen(message.key) }
                    return message.acknowledge
                }
            }
            group.addTask {
                for await line in lines {
                    let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { continue }
                    do {
                        sent(try await self.send(.text(text), to: recipient, as: unlocked))
                    } catch let error as WotsError {
                        failed(error)
                    }
                }
            }
            // The first task to finish is the input ending (or the stream failing for good): stop the other.
            try await group.next()
            group.cancelAll()
        }
    }
}
