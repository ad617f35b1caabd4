/// What a version 2 or group (version 3) envelope says, by type. The JSON form (`MessageBody.encoded`) is in SECURITY.md, "Typed content".
public enum MessageContent: Sendable, Hashable {
    case text(String)
    /// The reader's client confirms that it stored (`delivered`) or that a person saw (`read`) earlier messages.
    case receipt(Receipt)
    /// Sent only as an ephemeral frame; never stored by the relay.
    case typing(TypingState)
    case attachment(AttachmentReference)
    /// The conversation's disappearing timer in seconds (0 = off), set by either side.
    case settings(disappearAfter: UInt32)
    case profile(ProfileAvatar)
    /// A signed key-transparency checkpoint, gossiped between clients.
    case checkpoint(note: String)
    /// A membership change of a group and the whole new state (group envelopes only; SECURITY.md, "Membership chain").
    case groupUpdate(GroupUpdate)
    /// A type this build does not know: kept and shown as unsupported, never an error.
    case unsupported(type: String)

    public enum TypingState: String, Sendable, Hashable, CaseIterable {
        case started, stopped
    }

    /// The `type` string of the JSON form.
    public var type: String {
        switch self {
        case .text: "text"
        case .receipt: "receipt"
        case .typing: "typing"
        case .attachment: "attachment"
        case .settings: "settings"
        case .profile: "profile"
        case .checkpoint: "checkpoint"
        case .groupUpdate: "group_update"
        case .unsupported(let type): type
        }
    }

    /// Whether the recipient's client answers it with `delivered` and `read` receipts: only what a person reads.
    public var wantsReceipts: Bool {
        switch self {
        case .text, .attachment: true
        default: false
        }
    }
}

/// An avatar as a `profile` message carries it: a preset's name, or an encrypted image blob.
public enum ProfileAvatar: Sendable, Hashable {
    case preset(Avatar.Preset)
    case image(AttachmentReference)
}
