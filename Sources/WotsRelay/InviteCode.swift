public import Foundation
import WotsCore
import WotsCrypto
public import WotsStorage

/// An invite code as the operator hands it out: `wots-inv-` and 32 base32 letters (160 random bits). Only its
/// SHA-256 is stored.
public struct InviteCode: Sendable, Hashable, CustomStringConvertible {
    static let prefix = "wots-inv-"
    static let randomByteCount = 20

    /// The code, to show once.
    public let text: String

    /// A fresh random code.
    public init() {
        self.text = Self.prefix + Base32.encode(SecureRandom.bytes(Self.randomByteCount))
    }

    /// The hash a code is stored and looked up by. Whatever the text (a mistyped code hashes to nothing stored),
    /// surrounding spaces dropped and letters lowercased, since base32 is read case-insensitively.
    public static func hash(of text: String) -> [UInt8] {
        SHA256.hash(Array(text.trimmingCharacters(in: .whitespaces).lowercased().utf8))
    }

    /// The stored invite for this code: its id is the first 6 bytes of the hash in hex, which names it in lists
    /// without revealing the code.
    /// - Parameters:
    ///   - uses: how many registrations it admits (at least 1).
    ///   - expiresAt: nil for never.
    public func invite(uses: Int, createdAt: Date, expiresAt: Date?) -> Invite {
        let hash = Self.hash(of: self.text)
        return Invite(
            id: hash.prefix(6).map { String(format: "%02x", $0) }.joined(),
            codeHash: hash,
            maximumUses: uses,
            createdAt: createdAt,
            expiresAt: expiresAt
        )
    }

    /// Never the code itself: it must not reach a log.
    public var description: String { "InviteCode(…)" }
}
