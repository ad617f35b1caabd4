public import Foundation

/// Message ids already shown, so a message delivered twice (at-least-once delivery) is shown once.
///
/// Keeps the most recent `capacity` ids, oldest forgotten first; stored as `seen-messages.json`.
public struct SeenMessages: Sendable, Hashable, Codable {
    /// How many ids are remembered. Default 10,000.
    public static let defaultCapacity = 10_000

    public private(set) var ids: [UUID]
    private var lookup: Set<UUID>
    public let capacity: Int

    public init(ids: [UUID] = [], capacity: Int = Self.defaultCapacity) {
        self.capacity = max(1, capacity)
        self.ids = Array(ids.suffix(self.capacity))
        self.lookup = Set(self.ids)
    }

    public func contains(_ id: UUID) -> Bool { self.lookup.contains(id) }

    /// Records an id. - Returns: false when it was seen already.
    @discardableResult
    public mutating func insert(_ id: UUID) -> Bool {
        guard self.lookup.insert(id).inserted else { return false }
        self.ids.append(id)
        if self.ids.count > self.capacity {
            let dropped = self.ids.count - self.capacity
            for old in self.ids.prefix(dropped) { self.lookup.remove(old) }
            self.ids.removeFirst(dropped)
        }
        return true
    }

    private enum CodingKeys: String, CodingKey { case ids, capacity }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            ids: try container.decode([UUID].self, forKey: .ids),
            capacity: try container.decodeIfPresent(Int.self, forKey: .capacity) ?? Self.defaultCapacity
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.ids, forKey: .ids)
        try container.encode(self.capacity, forKey: .capacity)
    }
}

extension LocalStore {
    public func seenMessages() throws -> SeenMessages {
        try self.read(SeenMessages.self, from: FileName.seenMessages) ?? SeenMessages()
    }

    public func save(_ seen: SeenMessages) throws { try self.write(seen, to: FileName.seenMessages) }
}
