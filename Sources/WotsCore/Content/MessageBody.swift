import Foundation

/// The plaintext of a version 2 envelope: typed content and the conversation's disappearing timer when it was sent.
///
/// One UTF-8 JSON object of at most 60 KiB with a string `type` (SECURITY.md, "Typed content"). Readers ignore keys
/// they do not know; a `type` they do not know becomes `.unsupported`.
public struct MessageBody: Sendable, Hashable {
    public static let maximumSize = 61_440
    /// The longest disappearing timer: 365 days.
    public static let maximumDisappearAfter: UInt32 = 31_536_000

    public var content: MessageContent
    /// Seconds after `sentAt` when the message disappears; 0 = never. A `settings` message carries the
    /// conversation's new timer here and never disappears itself, so a peer offline longer than the timer still
    /// learns it.
    public var disappearAfter: UInt32
    /// The sender's newest verified transparency-log head, so the recipient can check both saw the same log.
    public var log: LogHead?

    /// - Throws: `malformed` for a timer beyond 365 days, or a `settings` message whose timer differs from its own.
    public init(_ content: MessageContent, disappearAfter: UInt32 = 0, log: LogHead? = nil) throws {
        if case .settings(let timer) = content, timer != disappearAfter {
            throw WotsError(.malformed, "a settings message disappears after its own timer (\(timer) s)")
        }
        guard disappearAfter <= Self.maximumDisappearAfter else {
            throw WotsError(.malformed, "disappearAfter \(disappearAfter) s is beyond 365 days")
        }
        self.content = content
        self.disappearAfter = disappearAfter
        self.log = log
    }

    /// A `settings` message setting the conversation's timer (0 = off).
    public static func settings(disappearAfter: UInt32) throws -> MessageBody {
        try MessageBody(.settings(disappearAfter: disappearAfter), disappearAfter: disappearAfter)
    }

    /// The body a version 1 envelope's plaintext stands for: UTF-8 text, or `.unsupported("binary")`.
    public init(version1Plaintext plaintext: [UInt8]) {
        self.content =
            String(validating: plaintext, as: UTF8.self).map(MessageContent.text) ?? .unsupported(type: "binary")
        self.disappearAfter = 0
    }

    /// The expiry the header must carry for this body: `sentAt + 1000 × disappearAfter`, or 0 (no timer, or a
    /// `settings` message).
    public func expiresAtMilliseconds(sentAt: UInt64) -> UInt64 {
        if case .settings = self.content { return 0 }
        return self.disappearAfter == 0 ? 0 : sentAt + UInt64(self.disappearAfter) * 1000
    }

    /// How long after sending the message disappears; nil when it never does.
    public var expiresAfter: Duration? {
        self.expiresAtMilliseconds(sentAt: 0) == 0 ? nil : .seconds(self.disappearAfter)
    }

    /// Whether the header's expiry is the one this body asks for.
    /// - Throws: `malformed` when they differ (a relay cannot change a timer the recipient honours).
    public func checkExpiry(of header: EnvelopeHeader) throws {
        let expected = self.expiresAtMilliseconds(sentAt: header.sentAtMilliseconds)
        guard header.expiresAtMilliseconds == expected else {
            throw WotsError(
                .malformed,
                "envelope \(header.messageID) expires at \(header.expiresAtMilliseconds) ms but its content says \(expected)"
            )
        }
    }

    /// The JSON bytes, keys sorted.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = Array(try encoder.encode(MessageBodyWire(self)))
        guard bytes.count <= Self.maximumSize else {
            throw WotsError(.malformed, "message content is \(bytes.count) bytes (at most \(Self.maximumSize))")
        }
        return bytes
    }

    /// Parses the JSON form.
    /// - Throws: `malformed` saying which field breaks which rule.
    public init(decoding bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumSize else {
            throw WotsError(.malformed, "message content is \(bytes.count) bytes (at most \(Self.maximumSize))")
        }
        let wire: MessageBodyWire
        do {
            wire = try JSONDecoder().decode(MessageBodyWire.self, from: Data(bytes))
        } catch let error as WotsError {
            throw WotsError(.malformed, "message content: \(error.reason)")
        } catch {
            throw WotsError(.malformed, "message content is not a JSON object with a string type (\(error))")
        }
        try self.init(wire.content(), disappearAfter: wire.disappearAfter ?? 0, log: wire.log)
    }
}
