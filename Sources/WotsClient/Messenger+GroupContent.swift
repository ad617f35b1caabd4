public import Foundation
public import WotsCore

extension Messenger {
    /// Encrypts the file at `path`, uploads it **once** for every other member of `group` (the blob lists them all as
    /// recipients, so each may fetch it), then sends the attachment message to the group.
    /// - Parameters:
    ///   - disappearAfter: first set the group's disappearing timer to this many seconds (0 turns it off); the
    ///     attachment message and its blob then disappear after it too.
    ///   - progress: told the bytes uploaded so far.
    /// - Throws: `invalid_input` for an unreadable file, the relay's refusals (`blob_too_large`,
    ///   `blob_quota_exceeded`), and what `sendGroup` throws.
    public func sendGroupFile(
        at path: String,
        caption: String?,
        to group: String,
        messageID: UUID = Envelope.newMessageID(),
        disappearAfter: UInt32? = nil,
        progress: TransferProgress? = nil
    ) async throws -> SentGroupMessage {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw WotsError(.invalidInput, "\(path) is not a readable file")
        }
        let (unlocked, state) = try await self.memberState(of: group, disappearAfter: disappearAfter)
        // Sealed with the time taken before the upload, so the blob's expiry is exactly the message's.
        let sentAt = Date()
        let reference = try await self.uploadGroupAttachment(
            at: path,
            caption: caption,
            in: state,
            sentAt: sentAt,
            as: unlocked,
            progress: progress
        )
        return try await self.post(
            .attachment(reference),
            in: state,
            messageID: messageID,
            sentAt: sentAt,
            as: unlocked
        )
    }

    /// Uploads the file at `path` once, as a blob every other member of `state` may fetch, expiring with a message sent
    /// at `sentAt` under the group's timer.
    func uploadGroupAttachment(
        at path: String,
        caption: String?,
        in state: GroupState,
        sentAt: Date,
        as unlocked: Unlocked,
        progress: TransferProgress?
    ) async throws -> AttachmentReference {
        let timer = try self.openHistory(unlocked).disappearAfter(with: try Self.historyPeer(of: state.id))
        return try await self.uploadAttachment(
            at: path,
            caption: caption,
            for: state.tokens.filter { $0 != unlocked.token },
            expiresAt: Self.expiry(sentAt: sentAt, disappearAfter: timer),
            progress: progress
        )
    }

    /// Sets the disappearing timer of `group` for every member (a `settings` group message; any member may), without
    /// sending a text. Members keep the latest change by its `sentAt`, then by the setter's token.
    public func setGroupTimer(_ group: String, seconds: UInt32) async throws -> SentGroupMessage {
        let (unlocked, state) = try await self.memberState(of: group)
        return try await self.post(.settings(disappearAfter: seconds), in: state, as: unlocked)
    }

    /// The group's disappearing timer here, in seconds (0 = off).
    public func groupTimer(_ group: String) async throws -> UInt32 {
        let unlocked = try await self.unlock()
        let chain = try self.store.groupBook().resolve(group)
        let history = try self.openHistory(unlocked)
        return UInt32(clamping: try history.disappearAfter(with: try Self.historyPeer(of: chain.current.id)))
    }

    /// Waits on the live stream until every member a group message `id` went to confirmed it stored it (a
    /// `delivered` or `read` receipt, each sent to this account alone), or `timeout` passes. Only receipts are taken
    /// from the mailbox meanwhile.
    /// - Returns: how far the message got when every member confirmed or the time ran out.
    /// - Throws: `not_found` when `id` is not a group message this account sent.
    public func waitForGroupDelivery(of id: UUID, timeout: Duration) async throws -> GroupDelivery {
        let unlocked = try await self.unlock()
        let keeper = try ConversationKeeper(messenger: self, unlocked: unlocked, readReceipts: false)
        let key = MessageKey(sender: unlocked.token, id: id)
        guard let first = try await keeper.deliveries([key]).first, first.members > 0 else {
            throw WotsError(.notFound, "message \(id.lowercasedString) is not a group message sent from here")
        }
        if first.isComplete { return first }
        let state = try self.listenerState(for: unlocked)
        let stream = StreamClient(relay: self.relay, logger: self.logger)
        let (progress, report) = AsyncStream.makeStream(of: GroupDelivery.self)
        return try await withThrowingTaskGroup(of: GroupDelivery?.self) { group in
            group.addTask {
                try await stream.run(status: { _ in }) { delivered in
                    guard let message = try await state.open(delivered) else { return true }
                    guard case .receipt = message.body?.content else { return false }
                    if case .groupStatus(let deliveries, _, _) = try await keeper.receive(message) {
                        for delivery in deliveries where delivery.key == key { report.yield(delivery) }
                    }
                    try await state.markSeen(message.key)
                    return true
                }
                return nil
            }
            group.addTask {
                for await delivery in progress where delivery.isComplete { return delivery }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let done = try await group.next() ?? nil
            group.cancelAll()
            report.finish()
            if let done { return done }
            return try await keeper.deliveries([key]).first ?? first
        }
    }
}
