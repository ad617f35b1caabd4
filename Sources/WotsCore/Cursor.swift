import Foundation

/// An opaque position in the directory: the page after it starts at the next nickname in order.
///
/// Clients pass it back unchanged; its spelling (base64url of a versioned nickname) is not part of the API.
public struct Cursor: Sendable, Hashable, Codable, CustomStringConvertible {
    private static let prefix = "n1:"

    /// The last nickname of the previous page.
    public let lastNickname: Nickname

    public init(after nickname: Nickname) { self.lastNickname = nickname }

    /// Parses a cursor a client sent back.
    /// - Throws: `WotsError.invalidCursor` when it was not made by `description`.
    public init(_ text: String) throws {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 64, let data = Data(base64Encoded: base64),
            let decoded = String(data: data, encoding: .utf8), decoded.hasPrefix(Self.prefix),
            let nickname = try? Nickname(naming: String(decoded.dropFirst(Self.prefix.count)))
        else {
            throw WotsError(.invalidCursor, "cursor \"\(text.prefix(64))\" was not issued by this relay")
        }
        self.lastNickname = nickname
    }

    /// The opaque spelling handed to clients.
    public var description: String {
        Data((Self.prefix + self.lastNickname.value).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
