import Foundation
import WotsCore
import WotsCrypto

extension MessageOpener {
    /// Opens one delivered group message with this account's slot; the sender's keys are found as for 1:1 messages.
    /// - Returns: nil when its (sender, id) was shown before; else the message (with a problem when it cannot be
    ///   read) and its verified header and typed content when it can.
    /// - Throws: only when the relay cannot be asked about the sender (the message stays for next time).
    /// - Parameter recorded: the sender's fingerprint as the receiver's group state records it, if any: a sender not
    ///   pinned here is not pinned on first use with another key (the admin who added it saw that one).
    mutating func open(
        _ delivered: DeliveredGroupMessage,
        recorded: Fingerprint? = nil
    ) async throws -> (message: ReceivedMessage, opened: (header: GroupEnvelopeHeader, body: MessageBody)?)? {
        let header = delivered.body.header
        if self.seen.contains(header.messageKey) { return nil }
        var message = ReceivedMessage(
            id: header.messageID,
            seq: delivered.seq,
            from: nil,
            fromToken: header.sender,
            senderFingerprint: header.senderFingerprint,
            sentAt: header.sentAt,
            receivedAt: delivered.receivedAt,
            text: nil,
            problem: nil,
            acknowledge: true
        )
        if header.sender != self.token, self.contacts.contact(token: header.sender) == nil, let recorded,
            recorded != header.senderFingerprint
        {
            let name = (try? await self.lookUp(header.sender).nickname.value) ?? "token \(header.sender)"
            message.from = try? await self.lookUp(header.sender).nickname
            let reason =
                "\(name) signed with key \(header.senderFingerprint.grouped), not the one the group recorded "
                + "(\(recorded.grouped)); check `wots verify \(name)` with them, then run `wots trust \(name)` to read "
                + "this message"
            return (message.failing(.keyChanged, reason, acknowledge: false), nil)
        }
        guard let senderKeys = try await self.senderKeys(of: &message) else { return (message, nil) }
        let body: MessageBody
        do {
            let opened = try delivered.body.open(
                slot: delivered.slot,
                as: self.token,
                identity: self.identity,
                senderKeys: senderKeys
            )
            body = try MessageBody(decoding: opened.plaintext)
            let expected = body.expiresAtMilliseconds(sentAt: header.sentAtMilliseconds)
            guard header.expiresAtMilliseconds == expected else {
                throw WotsError(
                    .malformed,
                    "group message \(header.messageID) expires at \(header.expiresAtMilliseconds) ms "
                        + "but its content says \(expected)"
                )
            }
        } catch let error as WotsError {
            return (message.failing(error.code, error.reason), nil)
        }
        message.body = body
        message.expiresAt = header.expiresAt
        switch body.content {
        case .text(let text): message.text = text
        case .attachment(let reference):
            message.attachment = reference
            message.text = reference.caption
        default: break
        }
        message.warnings = ReceivedMessage.warnings(sentAt: header.sentAt, now: Date(), restoredAt: self.restoredAt)
        return (message, (header, body))
    }

    /// A member's nickname for the lines shown: the contact book's, else the directory's (not pinned); nil when the
    /// directory cannot say.
    mutating func nickname(of token: Token) async -> Nickname? {
        if let contact = self.contacts.contact(token: token) { return contact.nickname }
        return try? await self.lookUp(token).nickname
    }
}
