public import WotsCore
import WotsCrypto

extension GroupChain {
    /// Starts a chain from the envelope that adds the owner, recording the sender's sequence as the baseline.
    /// - Throws: what `init(joining:from:as:)` and `receive(_:in:)` refuse.
    public init(joining update: GroupUpdate, in header: GroupEnvelopeHeader, as owner: Token) throws(GroupRefusal) {
        try Self.checkReference(update, in: header)
        try self.init(joining: update, from: header.sender, as: owner)
        _ = try self.recordSequence(header)
    }

    /// Applies a `group_update` carried by a verified group envelope.
    ///
    /// The header must name the state the update is built on (for `create`, the new state itself); its recipients
    /// should be the union of the old and the new members, the sender included (a difference is a warning).
    /// - Returns: the new state and the warnings to show beside it.
    /// - Throws: a refusal naming the rule broken; the chain is unchanged then.
    public mutating func receive(
        _ update: GroupUpdate,
        in header: GroupEnvelopeHeader
    ) throws(GroupRefusal) -> (state: GroupState, warnings: [GroupWarning]) {
        try Self.checkReference(update, in: header)
        if let last = self.lastSequence[header.sender], header.senderSequence <= last {
            throw GroupRefusal(
                .sequenceReused,
                "\(header.sender) used sequence \(header.senderSequence) in group \(header.groupID) after \(last)"
            )
        }
        let previous = self.current
        let next = try self.apply(update, from: header.sender)
        var warnings = try self.recordSequence(header)
        warnings += Self.recipientWarnings(header, expected: Set(previous.tokens + next.tokens), state: previous)
        return (next, warnings)
    }

    /// The header of an update names its parent state (version and hash), or the new state for a `create`.
    private static func checkReference(_ update: GroupUpdate, in header: GroupEnvelopeHeader) throws(GroupRefusal) {
        let state = update.state
        let named: (UInt64, [UInt8]) =
            update.action == .create ? (state.version, state.stateHash) : (state.version &- 1, state.previous)
        guard header.groupID == state.id, header.membershipVersion == named.0,
            header.membershipStateHash == named.1
        else {
            throw GroupRefusal(
                .invalidChange,
                "update \(header.messageID) names group \(header.groupID) version \(header.membershipVersion), "
                    + "not the state it is built on"
            )
        }
    }
}
