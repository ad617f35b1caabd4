/// A receipt: the reader's client confirms that it stored, or that a person saw, the named messages.
public struct Receipt: Sendable, Hashable {
    /// At most this many messages per receipt.
    public static let maximumMessages = 100

    public enum Status: String, Sendable, Hashable, CaseIterable, Comparable {
        case delivered, read

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs == .delivered && rhs == .read }
    }

    public var status: Status
    /// The (sender, id) of every message confirmed, 1 to 100.
    public var messages: [MessageKey]

    /// - Throws: `malformed` for no messages or more than 100.
    public init(status: Status, messages: [MessageKey]) throws {
        guard (1...Self.maximumMessages).contains(messages.count) else {
            throw WotsError(.malformed, "a receipt names 1 to \(Self.maximumMessages) messages, not \(messages.count)")
        }
        self.status = status
        self.messages = messages
    }
}
