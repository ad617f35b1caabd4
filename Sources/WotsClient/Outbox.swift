public import Foundation
public import WotsCore

/// Envelopes this account sealed recently, kept so a retried send (same message id) posts the very same envelope:
/// the relay then answers with the first receipt instead of a `message_id_conflict`. Stored as `outbox.json`.
///
/// Holds only sealed envelopes (ciphertext the relay sees anyway), the newest `capacity` of them.
public struct Outbox: Sendable, Hashable, Codable {
    /// How many envelopes are kept. Default 200.
    public static let capacity = 200

    public struct Item: Sendable, Hashable, Codable {
        public var envelope: Envelope
        /// Whether the relay confirmed it.
        public var delivered: Bool
    }

    public private(set) var items: [Item] = []

    public init() {}

    public func envelope(id: UUID) -> Envelope? {
        self.items.first { $0.envelope.header.messageID == id }?.envelope
    }

    public mutating func add(_ envelope: Envelope) {
        self.items.removeAll { $0.envelope.header.messageID == envelope.header.messageID }
        self.items.append(Item(envelope: envelope, delivered: false))
        if self.items.count > Self.capacity {
            // Forget delivered envelopes first; undelivered ones only when nothing else is left.
            if let oldest = self.items.firstIndex(where: \.delivered) {
                self.items.remove(at: oldest)
            } else {
                self.items.removeFirst()
            }
        }
    }

    /// Forgets the envelopes with these ids (disappearing messages that expired). - Returns: whether any was kept.
    public mutating func remove(_ ids: [UUID]) -> Bool {
        let before = self.items.count
        self.items.removeAll { ids.contains($0.envelope.header.messageID) }
        return self.items.count != before
    }

    public mutating func markDelivered(_ id: UUID) {
        if let index = self.items.firstIndex(where: { $0.envelope.header.messageID == id }) {
            self.items[index].delivered = true
        }
    }
}

extension LocalStore {
    public func outbox() throws -> Outbox { try self.read(Outbox.self, from: "outbox.json") ?? Outbox() }

    public func save(_ outbox: Outbox) throws { try self.write(outbox, to: "outbox.json") }
}
