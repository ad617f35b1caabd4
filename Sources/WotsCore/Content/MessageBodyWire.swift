import Foundation

/// The JSON shape of every content type in one struct: the fields a type does not use are absent.
struct MessageBodyWire: Codable {
    var type: String
    var disappearAfter: UInt32?
    var text: String?
    var status: String?
    var messages: [MessageKey]?
    /// `typing`'s state; a `group_update`'s state is the object `groupState` under the same key.
    var state: String?
    var action: String?
    var groupState: GroupState?
    var avatar: AvatarWire?
    var note: String?
    var attachment: AttachmentWire?
    var log: LogHead?

    struct AvatarWire: Codable {
        var preset: String?
        var image: AttachmentWire?
    }

    private enum CodingKeys: String, CodingKey {
        case type, disappearAfter, text, status, messages, state, action, avatar, note, log
    }

    init(_ body: MessageBody) {
        self.type = body.content.type
        self.disappearAfter = body.disappearAfter == 0 ? nil : body.disappearAfter
        self.log = body.log
        switch body.content {
        case .text(let text): self.text = text
        case .receipt(let receipt):
            self.status = receipt.status.rawValue
            self.messages = receipt.messages
        case .typing(let state): self.state = state.rawValue
        case .attachment(let reference): self.attachment = AttachmentWire(reference)
        case .settings: break
        case .profile(.preset(let preset)): self.avatar = AvatarWire(preset: preset.rawValue)
        case .profile(.image(let reference)):
            var image = AttachmentWire(reference)
            image.caption = nil
            self.avatar = AvatarWire(image: image)
        case .checkpoint(let note): self.note = note
        case .groupUpdate(let update):
            self.action = update.action.rawValue
            self.groupState = update.state
        case .unsupported: break
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.type = try container.decode(String.self, forKey: .type)
        self.disappearAfter = try container.decodeIfPresent(UInt32.self, forKey: .disappearAfter)
        self.text = try container.decodeIfPresent(String.self, forKey: .text)
        self.status = try container.decodeIfPresent(String.self, forKey: .status)
        self.messages = try container.decodeIfPresent([MessageKey].self, forKey: .messages)
        if self.type == "group_update" {
            self.groupState = try container.decodeIfPresent(GroupState.self, forKey: .state)
        } else {
            self.state = try container.decodeIfPresent(String.self, forKey: .state)
        }
        self.action = try container.decodeIfPresent(String.self, forKey: .action)
        self.avatar = try container.decodeIfPresent(AvatarWire.self, forKey: .avatar)
        self.note = try container.decodeIfPresent(String.self, forKey: .note)
        self.log = try container.decodeIfPresent(LogHead.self, forKey: .log)
        self.attachment = self.type == "attachment" ? try AttachmentWire(from: decoder) : nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.type, forKey: .type)
        try container.encodeIfPresent(self.disappearAfter, forKey: .disappearAfter)
        try container.encodeIfPresent(self.text, forKey: .text)
        try container.encodeIfPresent(self.status, forKey: .status)
        try container.encodeIfPresent(self.messages, forKey: .messages)
        try container.encodeIfPresent(self.state, forKey: .state)
        try container.encodeIfPresent(self.groupState, forKey: .state)
        try container.encodeIfPresent(self.action, forKey: .action)
        try container.encodeIfPresent(self.avatar, forKey: .avatar)
        try container.encodeIfPresent(self.note, forKey: .note)
        try container.encodeIfPresent(self.log, forKey: .log)
        try self.attachment?.encode(to: encoder)
    }

    /// The typed content, every field checked.
    func content() throws -> MessageContent {
        switch self.type {
        case "text": return .text(try Self.required(self.text, "text"))
        case "receipt":
            let name = try Self.required(self.status, "status")
            guard let status = Receipt.Status(rawValue: name) else {
                throw WotsError(.malformed, "receipt status \"\(name.prefix(20))\" is not delivered or read")
            }
            return .receipt(try Receipt(status: status, messages: try Self.required(self.messages, "messages")))
        case "typing":
            let name = try Self.required(self.state, "state")
            guard let state = MessageContent.TypingState(rawValue: name) else {
                throw WotsError(.malformed, "typing state \"\(name.prefix(20))\" is not started or stopped")
            }
            return .typing(state)
        case "attachment": return .attachment(try Self.required(self.attachment, "attachment fields").reference())
        case "settings": return .settings(disappearAfter: try Self.required(self.disappearAfter, "disappearAfter"))
        case "profile": return .profile(try self.profileAvatar())
        case "checkpoint": return .checkpoint(note: try Self.required(self.note, "note"))
        case "group_update":
            let name = try Self.required(self.action, "action")
            guard let action = GroupUpdate.Action(rawValue: name) else {
                throw WotsError(.malformed, "group_update action \"\(name.prefix(20))\" is unknown")
            }
            return .groupUpdate(GroupUpdate(action: action, state: try Self.required(self.groupState, "state")))
        default:
            guard !self.type.isEmpty, self.type.utf8.count <= 64 else {
                throw WotsError(.malformed, "content type must be 1 to 64 bytes")
            }
            return .unsupported(type: self.type)
        }
    }

    private func profileAvatar() throws -> ProfileAvatar {
        let avatar = try Self.required(self.avatar, "avatar")
        if let name = avatar.preset {
            guard let preset = Avatar.Preset(rawValue: name) else {
                throw WotsError(.malformed, "avatar preset \"\(name.prefix(20))\" is unknown")
            }
            return .preset(preset)
        }
        return .image(try Self.required(avatar.image, "avatar.preset or avatar.image").reference())
    }

    private static func required<Value>(_ value: Value?, _ field: String) throws -> Value {
        guard let value else { throw WotsError(.malformed, "\(field) is missing") }
        return value
    }
}
