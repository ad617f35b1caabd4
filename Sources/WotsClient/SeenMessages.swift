import Foundation
public import WotsCore

/// Messages already shown, by (sender, id), so a message delivered twice (at-least-once delivery) is shown once,
/// while two senders who happen to use one id never hide each other's messages.
///
/// Keeps the most recent `capacity` keys, oldest forgotten first; stored as `seen-messages.json`:
/// `{"messages": [{"sender", "id"}…], "capacity": N}`. A file from before keys were pairs (`{"ids": […]}`) reads as
/// empty: an old id without its sender cannot be matched safely.
public struct SeenMessages: Sendable, Hashable, Codable {
    /// How many keys are remembered. Default 10,000.
    public static let defaultCapacity = 10_000

    public private(set) var keys: [MessageKey]
    private var lookup: Set<MessageKey>
    public let capacity: Int

    public init(keys: [MessageKey] = [], capacity: Int = Self.defaultCapacity) {
        self.capacity = max(1, capacity)
        self.keys = Array(keys.suffix(self.capacity))
        self.lookup = Set(self.keys)
    }

    public func contains(_ key: MessageKey) -> Bool { self.lookup.contains(key) }

    /// Records a key. - Returns: false when it was seen already.
    @discardableResult
    public mutating func insert(_ key: MessageKey) -> Bool {
        guard self.lookup.insert(key).inserted else { return false }
        self.keys.append(key)
        if self.keys.count > self.capacity {
            let dropped = self.keys.count - self.capacity
            for old in self.keys.prefix(dropped) { self.lookup.remove(old) }
            self.keys.removeFirst(dropped)
        }
        return true
    }

    private enum CodingKeys: String, CodingKey { case messages, capacity }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            keys: try container.decodeIfPresent([MessageKey].self, forKey: .messages) ?? [],
            capacity: try container.decodeIfPresent(Int.self, forKey: .capacity) ?? Self.defaultCapacity
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.keys, forKey: .messages)
        try container.encode(self.capacity, forKey: .capacity)
    }
}

extension LocalStore {
    public func seenMessages() throws -> SeenMessages {
        try self.read(SeenMessages.self, from: FileName.seenMessages) ?? SeenMessages()
    }

    public func save(_ seen: SeenMessages) throws { try self.write(seen, to: FileName.seenMessages) }
}
