public import Foundation
public import WotsCore

/// A group envelope that was verified and decrypted: its plaintext and the signed header that vouches for it.
///
/// Never describes its plaintext.
public struct OpenedGroupMessage: Sendable, Hashable, CustomStringConvertible {
    /// The message bytes, padding removed.
    public let plaintext: [UInt8]
    /// The verified header: group, membership state, sender sequence and the whole recipient list.
    public let header: GroupEnvelopeHeader

    public init(plaintext: [UInt8], header: GroupEnvelopeHeader) {
        self.plaintext = plaintext
        self.header = header
    }

    public var sender: Token { self.header.sender }
    public var groupID: GroupID { self.header.groupID }
    public var messageID: UUID { self.header.messageID }

    public var description: String {
        "OpenedGroupMessage(id \(self.messageID), group \(self.groupID), from \(self.sender), "
            + "\(self.plaintext.count) bytes)"
    }
}
