public import WotsCore

/// A peer's avatar as this machine knows it from their `profile` message: a preset's name, or an image saved to a
/// file (`WOTS_HOME/avatars/NICK.png|jpg`).
public enum PeerAvatar: Sendable, Hashable, Codable {
    case preset(Avatar.Preset)
    case image(path: String)

    /// What a received profile says, once its image (if any) was saved at `savedTo`; nil for an image not saved.
    init?(_ avatar: ProfileAvatar, savedTo: String?) {
        switch avatar {
        case .preset(let preset): self = .preset(preset)
        case .image:
            guard let savedTo else { return nil }
            self = .image(path: savedTo)
        }
    }

    /// As the history keeps it: the preset's name, or `image:` then the path.
    var stored: String {
        switch self {
        case .preset(let preset): preset.rawValue
        case .image(let path): "image:" + path
        }
    }

    init?(stored: String) {
        if stored.hasPrefix("image:") {
            self = .image(path: String(stored.dropFirst("image:".count)))
        } else if let preset = Avatar.Preset(rawValue: stored) {
            self = .preset(preset)
        } else {
            return nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case preset, image
    }

    /// `{"preset": "tiger"}` or `{"image": PATH}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try container.decodeIfPresent(String.self, forKey: .image) {
            self = .image(path: path)
        } else {
            let name = try container.decode(String.self, forKey: .preset)
            guard let preset = Avatar.Preset(rawValue: name) else {
                throw WotsError(.localStore, "avatar preset \"\(name.prefix(20))\" is unknown")
            }
            self = .preset(preset)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .preset(let preset): try container.encode(preset.rawValue, forKey: .preset)
        case .image(let path): try container.encode(path, forKey: .image)
        }
    }
}
