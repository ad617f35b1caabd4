public import Foundation
public import WotsCore

/// An envelope that was verified and decrypted: its plaintext and the header that vouches for it.
///
/// Never describes its plaintext.
public struct OpenedMessage: Sendable, Hashable, CustomStringConvertible {
    /// The message bytes, padding removed.
    public let plaintext: [UInt8]
    /// The verified header.
    public let header: EnvelopeHeader

    public init(plaintext: [UInt8], header: EnvelopeHeader) {
        self.plaintext = plaintext
        self.header = header
    }

    public var sender: Token { self.header.sender }
    public var recipient: Token { self.header.recipient }
    public var messageID: UUID { self.header.messageID }
    public var sentAt: Date { self.header.sentAt }

    /// The plaintext as UTF-8 text, or nil when it is not valid UTF-8.
    public var text: String? { String(validating: self.plaintext, as: UTF8.self) }

    public var description: String {
        "OpenedMessage(id \(self.messageID), from \(self.sender), \(self.plaintext.count) bytes)"
    }
}

extension OpenedMessage {
    /// The typed content: a version 1 plaintext is text; a version 2 one is parsed and its timer checked against the
    /// signed header.
    /// - Throws: `malformed` for content that does not parse or a header expiry that is not the content's timer.
    public func body() throws -> MessageBody {
        guard self.header.version != 1 else { return MessageBody(version1Plaintext: self.plaintext) }
        let body = try MessageBody(decoding: self.plaintext)
        try body.checkExpiry(of: self.header)
        return body
    }
}
