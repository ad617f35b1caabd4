public import Foundation
public import WotsCore
import WotsCrypto

extension Messenger {
    /// Encrypts the file at `path`, uploads it for `nickname` (resuming after a cut), then sends a message whose
    /// content is the attachment: the blob id, the file key, the digest, the size, the name and the caption.
    /// - Parameters:
    ///   - progress: told the bytes uploaded so far.
    ///   - disappearAfter: first set the conversation's disappearing timer to this many seconds (0 turns it off) and
    ///     tell the recipient (a `settings` message); the attachment message then disappears after it too.
    /// - Throws: `invalid_input` for an unreadable file or a too long name or caption, the relay's refusals
    ///   (`blob_too_large`, `blob_quota_exceeded`), and whatever `send` throws.
    public func sendFile(
        at path: String,
        caption: String?,
        to nickname: Nickname,
        messageID: UUID = Envelope.newMessageID(),
        disappearAfter: UInt32? = nil,
        progress: TransferProgress? = nil
    ) async throws -> SentMessage {
        let unlocked = try await self.unlock()
        let recipient = try await self.recipient(nickname)
        let history = try self.openHistory(unlocked)
        _ = try self.removeExpired(from: history, now: self.configuration.now())
        if let disappearAfter {
            _ = try await self.send(
                .settings(disappearAfter: disappearAfter),
                to: recipient,
                as: unlocked,
                history: history
            )
        }
        // Sealed with the time taken before the upload, so the blob's expiry is exactly the message's.
        let sentAt = Date()
        let timer = try history.disappearAfter(with: recipient.entry.token)
        let reference = try await self.uploadAttachment(
            at: path,
            caption: caption,
            for: recipient.entry.token,
            expiresAt: Self.expiry(sentAt: sentAt, disappearAfter: timer),
            progress: progress
        )
        let sent = try await self.send(
            .attachment(reference),
            to: recipient,
            messageID: messageID,
            sentAt: sentAt,
            as: unlocked,
            history: history
        )
        if recipient.pinnedNow { await self.introduce(to: recipient, as: unlocked, history: history) }
        return sent
    }

    /// The `expiresAt` of a message sealed at `sentAt` under a timer of `disappearAfter` seconds, to the millisecond
    /// its envelope carries; nil without a timer.
    static func expiry(sentAt: Date, disappearAfter: Int) -> Date? {
        guard disappearAfter > 0 else { return nil }
        let sentAtMilliseconds = (sentAt.timeIntervalSince1970 * 1000).rounded(.down)
        return Date(timeIntervalSince1970: (sentAtMilliseconds + Double(disappearAfter) * 1000) / 1000)
    }

    /// Encrypts to a temporary file, announces the blob and uploads it.
    /// - Parameter expiresAt: the expiry of the message that will carry it: the relay deletes the blob then at the
    ///   latest.
    func uploadAttachment(
        at path: String,
        caption: String?,
        for recipient: Token,
        expiresAt: Date? = nil,
        progress: TransferProgress?
    ) async throws -> AttachmentReference {
        try await self.uploadAttachment(
            at: path,
            caption: caption,
            for: [recipient],
            expiresAt: expiresAt,
            progress: progress
        )
    }

    /// Encrypts to a temporary file, announces the blob for every one of `recipients` (each may fetch it; it is
    /// deleted once all of them acknowledged it) and uploads it once.
    /// - Parameter expiresAt: the expiry of the message that will carry it: the relay deletes the blob then at the
    ///   latest.
    func uploadAttachment(
        at path: String,
        caption: String?,
        for recipients: [Token],
        expiresAt: Date? = nil,
        progress: TransferProgress?
    ) async throws -> AttachmentReference {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard !name.isEmpty, name.utf8.count <= AttachmentReference.maximumNameBytes else {
            throw WotsError(.invalidInput, "the file name must be 1 to \(AttachmentReference.maximumNameBytes) bytes")
        }
        if let caption, caption.utf8.count > AttachmentReference.maximumCaptionBytes {
            throw WotsError(
                .invalidInput,
                "the caption is longer than \(AttachmentReference.maximumCaptionBytes) bytes"
            )
        }
        let sealedFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("wots-upload-\(UUID().uuidString).blob").path
        defer { try? FileManager.default.removeItem(atPath: sealedFile) }
        let cipher = try AttachmentCipher.random()
        let sealed = try cipher.encrypt(fileAt: path, to: sealedFile)
        let blob = try await self.relay.createBlob(
            size: sealed.encryptedSize,
            recipients: recipients,
            expiresAt: expiresAt
        )
        try await self.relay.uploadBlob(blob.id, from: sealedFile, progress: progress)
        return try AttachmentReference(
            blob: blob.id.description,
            key: cipher.key,
            digest: sealed.digest,
            size: UInt64(sealed.size),
            name: name,
            mediaType: MediaType.guess(forName: name),
            caption: caption
        )
    }

    /// Downloads, checks and saves a valid attachment message's file with `saver`, recording where in `savedTo`.
    /// A failure makes the message invalid with its reason; a transient one (relay unreachable) also keeps it in the
    /// mailbox, so the next run tries again.
    func fetchAttachment(
        of message: inout ReceivedMessage,
        with saver: AttachmentSaver?,
        progress: TransferProgress?
    ) async {
        guard let saver, message.isValid, let reference = message.attachment else { return }
        do {
            let download = try AttachmentDownload(reference)
            message.savedTo = try await saver.save(download, from: self.relay, progress: progress).path
        } catch let error as WotsError {
            message.problem = ReceivedMessage.Problem(
                code: error.code,
                message: "attachment \"\(reference.name)\": \(error.reason)"
            )
            message.acknowledge = !Self.isTransient(error)
        } catch {
            message.problem = ReceivedMessage.Problem(
                code: .invalidInput,
                message: "attachment \"\(reference.name)\": \(error)"
            )
        }
    }
}

extension AttachmentDownload {
    /// The download an attachment message describes.
    /// - Throws: `attachment_corrupt` for a chunk size other than this client's 64 KiB.
    public init(_ reference: AttachmentReference) throws {
        guard reference.chunkSize == AttachmentCipher.chunkSize else {
            throw WotsError(
                .attachmentCorrupt,
                "chunk size \(reference.chunkSize) is not supported (this client reads \(AttachmentCipher.chunkSize))"
            )
        }
        guard reference.size <= UInt64(Int64.max) else {
            throw WotsError(.attachmentCorrupt, "attachment size \(reference.size) is out of range")
        }
        self.init(
            blob: try BlobID(reference.blob),
            key: reference.key,
            digest: reference.digest,
            size: Int64(reference.size),
            name: reference.name
        )
    }
}
