/// A user's picture: a small PNG or JPEG, or one of WotsApp's twelve named presets.
public enum Avatar: Sendable, Hashable, Codable {
    /// Largest image accepted, in bytes.
    public static let maximumImageSize = 65_536

    public enum Preset: String, Sendable, Hashable, Codable, CaseIterable {
        case mouse, ox, tiger, rabbit, dragon, snake, horse, ram, monkey, rooster, dog, pig
    }

    case preset(Preset)
    case image([UInt8])

    /// Accepts PNG or JPEG bytes (checked by their magic numbers) of at most 64 KiB.
    /// - Throws: `WotsError.invalidAvatar` saying whether the size or the format is wrong.
    public static func validatedImage(_ bytes: [UInt8]) throws -> Avatar {
        guard bytes.count <= maximumImageSize else {
            throw WotsError(.invalidAvatar, "avatar is \(bytes.count) bytes (at most \(maximumImageSize))")
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        guard bytes.starts(with: png) || bytes.starts(with: jpeg) else {
            throw WotsError(.invalidAvatar, "avatar is neither a PNG nor a JPEG image")
        }
        return .image(bytes)
    }

    /// - Throws: `WotsError.invalidAvatar` listing the preset names.
    public static func preset(named name: String) throws -> Avatar {
        guard let preset = Preset(rawValue: name.lowercased()) else {
            let names = Preset.allCases.map(\.rawValue).joined(separator: ", ")
            throw WotsError(.invalidAvatar, "avatar preset \"\(name.prefix(40))\" is unknown (one of: \(names))")
        }
        return .preset(preset)
    }

    private enum CodingKeys: String, CodingKey {
        case preset, image
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let name = try container.decodeIfPresent(String.self, forKey: .preset) {
            self = try Avatar.preset(named: name)
        } else {
            self = try Avatar.validatedImage(try container.decodeBase64(forKey: .image))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .preset(let preset): try container.encode(preset.rawValue, forKey: .preset)
        case .image(let bytes): try container.encodeBase64(bytes, forKey: .image)
        }
    }
}
