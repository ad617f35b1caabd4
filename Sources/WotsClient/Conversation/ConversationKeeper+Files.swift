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
        // Sealed with the time taken before the upload, so the blob's expiry is exactly the message's.
        let sentAt = Date()
        let reference = try await self.messenger.uploadAttachment(
            at: path,
            caption: caption,
            for: peer,
            expiresAt: Messenger.expiry(sentAt: sentAt, disappearAfter: try self.history.disappearAfter(with: peer)),
            progress: progress
        )
        return try await self.send(.attachment(reference), to: peer, sentAt: sentAt)
    }
}
