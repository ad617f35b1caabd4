public import Foundation
public import WotsCore

/// One message from the mailbox after verification and decryption, or the reason it could not be read.
///
/// Its JSON form (one object per message for `wots inbox --json`, one per line for `wots listen --json`) is stable:
/// `{"id", "seq", "from", "fromToken", "senderFingerprint", "sentAt", "receivedAt", "text", "valid", "error",
/// "warnings"}` with `id` a lowercase UUID, `from` null when the sender is unknown, `text` null unless `valid`, `error`
/// `{"code", "message"}` or null, and `warnings` a list of `Warning` names (empty for most messages).
public struct ReceivedMessage: Sendable, Hashable, Codable {
    /// What a valid message's dates suggest: shown beside it, never a reason to hide it.
    public enum Warning: String, Sendable, Hashable, Codable {
        /// Dated more than 10 minutes ahead of this machine's clock.
        case datedInFuture = "dated_in_future"
        /// Dated before this home restored the account: the relay may be serving an old message again, and the
        /// record of messages already shown did not survive the restore.
        case sentBeforeRestore = "sent_before_restore"
    }

    /// How far ahead of the local clock a sender's clock may be before the message is flagged.
    public static let allowedClockSkew: TimeInterval = 600

    /// Why a message is not shown as valid.
    public struct Problem: Sendable, Hashable, Codable {
        /// `bad_signature`, `not_for_me`, `sender_key_mismatch`, `decryption_failed`, `key_changed`,
        /// `unknown_sender`, `malformed`, `unsupported_version`, `not_text`.
        public var code: ErrorCode
        public var message: String

        public init(code: ErrorCode, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var id: UUID
    public var seq: Int64
    /// The sender's nickname, when the directory or the contact book knows the token.
    public var from: Nickname?
    public var fromToken: Token
    /// The sender key fingerprint the envelope names.
    public var senderFingerprint: Fingerprint
    /// The sender's clock.
    public var sentAt: Date
    /// The relay's clock.
    public var receivedAt: Date
    /// The text, only for a verified and decrypted text message.
    public var text: String?
    /// The typed content and its timer, for a verified and decrypted message of any type.
    public var body: MessageBody?
    /// When the message disappears (its header's `expiresAt`); nil for never.
    public var expiresAt: Date?
    public var problem: Problem?
    /// Whether the message should be acknowledged (deleted at the relay) once shown. A message from a changed key is
    /// kept until the user trusts the key.
    public var acknowledge: Bool
    public var warnings: [Warning] = []
    /// A valid attachment message's reference; `text` is then its caption, if any.
    public var attachment: AttachmentReference?
    /// Where the attachment was saved, once it was.
    public var savedTo: String?

    /// This message with a problem: not shown as valid, acknowledged unless `acknowledge` is false.
    func failing(_ code: ErrorCode, _ reason: String, acknowledge: Bool = true) -> ReceivedMessage {
        var failed = self
        failed.problem = Problem(code: code, message: reason)
        failed.acknowledge = acknowledge
        return failed
    }

    public var isValid: Bool { self.problem == nil && (self.body != nil || self.attachment != nil) }

    /// The message's identity: (sender, id).
    public var key: MessageKey { MessageKey(sender: self.fromToken, id: self.id) }

    /// The sender as people read it: the nickname, else the token.
    public var senderName: String { self.from?.value ?? "token \(self.fromToken)" }

    private enum CodingKeys: String, CodingKey {
        case id, seq, from, fromToken, senderFingerprint, sentAt, receivedAt, text, valid, error, warnings
        case attachment, savedTo
    }

    /// An attachment as `--json` shows it: what the sender said about the file (never its key).
    private struct AttachmentSummary: Codable {
        var name: String
        var size: UInt64
        var mediaType: String
    }

    public init(
        id: UUID,
        seq: Int64,
        from: Nickname?,
        fromToken: Token,
        senderFingerprint: Fingerprint,
        sentAt: Date,
        receivedAt: Date,
        text: String?,
        problem: Problem?,
        acknowledge: Bool
    ) {
        self.id = id
        self.seq = seq
        self.from = from
        self.fromToken = fromToken
        self.senderFingerprint = senderFingerprint
        self.sentAt = sentAt
        self.receivedAt = receivedAt
        self.text = text
        self.body = text.flatMap { try? MessageBody(.text($0)) }
        self.problem = problem
        self.acknowledge = acknowledge
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(UUID.self, forKey: .id)
        self.seq = try container.decode(Int64.self, forKey: .seq)
        self.from = try container.decodeIfPresent(Nickname.self, forKey: .from)
        self.fromToken = try container.decode(Token.self, forKey: .fromToken)
        self.senderFingerprint = try container.decode(Fingerprint.self, forKey: .senderFingerprint)
        self.sentAt = try container.decode(Date.self, forKey: .sentAt)
        self.receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        self.text = try container.decodeIfPresent(String.self, forKey: .text)
        self.body = self.text.flatMap { try? MessageBody(.text($0)) }
        self.problem = try container.decodeIfPresent(Problem.self, forKey: .error)
        self.warnings = try container.decodeIfPresent([Warning].self, forKey: .warnings) ?? []
        self.savedTo = try container.decodeIfPresent(String.self, forKey: .savedTo)
        self.acknowledge = true
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Lowercase, as the text output and `wots send --id` spell ids (Foundation's UUID encodes uppercase).
        try container.encode(self.id.uuidString.lowercased(), forKey: .id)
        try container.encode(self.seq, forKey: .seq)
        try container.encode(self.from, forKey: .from)
        try container.encode(self.fromToken, forKey: .fromToken)
        try container.encode(self.senderFingerprint, forKey: .senderFingerprint)
        try container.encode(self.sentAt, forKey: .sentAt)
        try container.encode(self.receivedAt, forKey: .receivedAt)
        try container.encode(self.isValid ? self.text : nil, forKey: .text)
        try container.encode(self.isValid, forKey: .valid)
        try container.encode(self.problem, forKey: .error)
        try container.encode(self.warnings, forKey: .warnings)
        if let attachment, self.isValid {
            try container.encode(
                AttachmentSummary(name: attachment.name, size: attachment.size, mediaType: attachment.mediaType),
                forKey: .attachment
            )
            try container.encode(self.savedTo, forKey: .savedTo)
        }
    }

    /// The warnings a message's `sentAt` earns at `now`, for an account restored at `restoredAt` (if it was).
    public static func warnings(sentAt: Date, now: Date, restoredAt: Date?) -> [Warning] {
        var warnings: [Warning] = []
        if sentAt.timeIntervalSince(now) > Self.allowedClockSkew { warnings.append(.datedInFuture) }
        if let restoredAt, sentAt < restoredAt { warnings.append(.sentBeforeRestore) }
        return warnings
    }
}
