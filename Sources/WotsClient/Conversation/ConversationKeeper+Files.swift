import Foundation
public import WotsCore

extension ConversationKeeper {
    /// Encrypts and uploads the file at `path` for `peer`, then sends the attachment message under the conversation's
    /// timer, as `wots send --file` does; kept in the history as `sent`.
    /// - Parameter progress: told the bytes uploaded so far.
    /// - Throws: as `Messenger.sendFile`.
    public func sendFile(
        at path: String,
        caption: String? = nil,
        to peer: Token,
        progress: TransferProgress? = nil
    ) async throws -> SentMessage {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw WotsError(.invalidInput, "\(path) is not a readable file")
        }
        let reference = try await self.messenger.uploadAttachment(
            at: path,
            caption: caption,
            for: peer,
            progress: progress
        )
        return try await self.send(.attachment(reference), to: peer)
    }
}
