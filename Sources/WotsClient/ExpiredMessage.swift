public import Foundation
public import WotsCore

/// A message this account sent that waited at the relay longer than its retention period and was deleted, undelivered.
public struct ExpiredMessage: Sendable, Hashable, Encodable {
    public var id: UUID
    /// The recipient's nickname when known (a pinned contact or the directory), else nil.
    public var to: Nickname?
    public var toToken: Token
    public var receivedAt: Date
    public var expiredAt: Date

    /// How long the message waited, undelivered.
    public var waited: Duration { .seconds(max(0, self.expiredAt.timeIntervalSince(self.receivedAt))) }

    private enum CodingKeys: String, CodingKey {
        case kind, id, to, toToken, receivedAt, expiredAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(DeliveryNotice.Kind.expired, forKey: .kind)
        try container.encode(self.id.lowercasedString, forKey: .id)
        try container.encode(self.to?.value, forKey: .to)
        try container.encode(self.toToken, forKey: .toToken)
        try container.encode(self.receivedAt, forKey: .receivedAt)
        try container.encode(self.expiredAt, forKey: .expiredAt)
    }
}
