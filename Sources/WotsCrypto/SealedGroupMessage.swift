public import WotsCore

/// What sealing a group message gives: the body, stored once, and one slot per recipient in header order.
public struct SealedGroupMessage: Sendable, Hashable {
    public var envelope: GroupEnvelope
    /// In the order of `envelope.header.recipients`.
    public var slots: [GroupSlot]

    public init(envelope: GroupEnvelope, slots: [GroupSlot]) {
        self.envelope = envelope
        self.slots = slots
    }
}
