public import WotsCore
import WotsCrypto

/// What one member knows of one group: every state it has held since it joined, the current one, and the last
/// sender sequence seen from each sender. Pure logic: it decides; the caller stores, shows and reports.
///
/// Rules in SECURITY.md, "Membership chain" and "Group messages: what a member checks and reports".
public struct GroupChain: Sendable, Hashable {
    /// The member this chain belongs to.
    public let owner: Token
    public private(set) var current: GroupState
    public private(set) var currentHash: [UInt8]
    /// Every state held since joining, by hash.
    var held: [[UInt8]: GroupState]
    /// The highest sender sequence accepted from each sender.
    public private(set) var lastSequence: [Token: UInt64] = [:]

    /// Starts a chain from the first update that names the owner: a `create`, or an `add` that adds it. Taken on
    /// trust (like a first contact), from a sender who is an admin of the new state.
    /// - Throws: a refusal when the update does not make the owner a member or the sender is not an admin of it.
    public init(joining update: GroupUpdate, from sender: Token, as owner: Token) throws(GroupRefusal) {
        let state = update.state
        try Self.validate(state)
        guard let joined = state.member(owner),
            (update.action == .create && state.version == 1)
                || (update.action == .add && joined.joinedAt == state.version)
        else {
            throw GroupRefusal(.invalidChange, "a \(update.action) of group \(state.id) does not add \(owner)")
        }
        guard state.isAdmin(sender) else {
            throw GroupRefusal(.notAdmin, "\(sender) is not an admin of group \(state.id) and cannot add members")
        }
        self.owner = owner
        self.current = state
        self.currentHash = state.stateHash
        self.held = [self.currentHash: state]
    }

    /// Restores a stored chain (`GroupChain+Codable`).
    init(owner: Token, current: GroupState, held: [[UInt8]: GroupState], lastSequence: [Token: UInt64]) {
        self.owner = owner
        self.current = current
        self.currentHash = current.stateHash
        self.held = held
        self.lastSequence = lastSequence
    }

    /// Whether the owner is still a member of the current state (false once removed or after leaving).
    public var isMember: Bool { self.current.member(self.owner) != nil }

    /// Applies a membership change the relay delivered, if it chains onto the current state.
    ///
    /// The first valid update for a version wins; a second one built on the same state is a fork and refused.
    /// - Returns: the new current state.
    /// - Throws: a refusal naming the rule broken; the chain is unchanged then.
    @discardableResult
    public mutating func apply(_ update: GroupUpdate, from sender: Token) throws(GroupRefusal) -> GroupState {
        let next = update.state
        guard next.id == self.current.id else {
            throw GroupRefusal(.wrongGroup, "an update for group \(next.id) reached group \(self.current.id)")
        }
        try Self.validate(next)
        let hash = next.stateHash
        guard self.held[hash] == nil else {
            throw GroupRefusal(.replayed, "group \(next.id) version \(next.version) was applied already")
        }
        if next.version <= self.current.version {
            let sibling = next.version == self.current.version && next.previous == self.current.previous
            throw GroupRefusal(
                sibling ? .fork : .replayed,
                sibling
                    ? "a concurrent change to group \(next.id) version \(next.version) by \(sender) was not applied"
                    : "group \(next.id) version \(next.version) is older than the current \(self.current.version)"
            )
        }
        guard next.version == self.current.version + 1 else {
            throw GroupRefusal(
                .gap,
                "group \(next.id) jumped from version \(self.current.version) to \(next.version): an update is missing"
            )
        }
        guard next.previous == self.currentHash else {
            throw GroupRefusal(
                .fork,
                "group \(next.id) version \(next.version) is not built on the current state \(self.current.version)"
            )
        }
        try GroupTransition.check(update.action, from: self.current, to: next, by: sender)
        self.current = next
        self.currentHash = hash
        self.held[hash] = next
        return next
    }

    /// Decides whether a group message (any content but `group_update`) from its verified header is shown, and with
    /// which warnings; records the sender's sequence when it is.
    /// - Throws: a refusal: another group, a state the owner never held, a sender who is not a member of the named
    ///   state or of the current one, or a sequence number already used.
    public mutating func admit(_ header: GroupEnvelopeHeader) throws(GroupRefusal) -> [GroupWarning] {
        guard header.groupID == self.current.id else {
            throw GroupRefusal(.wrongGroup, "a message for group \(header.groupID) reached group \(self.current.id)")
        }
        guard let named = self.held[header.membershipStateHash], named.version == header.membershipVersion else {
            throw GroupRefusal(
                .unknownState,
                "message \(header.messageID) names group \(header.groupID) version \(header.membershipVersion), "
                    + "a state this member never held (group history diverged or an update is missing)"
            )
        }
        guard named.member(header.sender) != nil, self.current.member(header.sender) != nil else {
            throw GroupRefusal(
                .notMember,
                "\(header.sender) is not a member of group \(header.groupID) (version \(self.current.version))"
            )
        }
        let expected = Set(named.tokens.filter { $0 != header.sender })
        var warnings = try self.recordSequence(header)
        warnings += Self.recipientWarnings(header, expected: expected, state: named)
        return warnings
    }

    /// Whether an ephemeral group message (typing) may be shown: it names this group and a state the owner held, and
    /// its sender is a member of that state and of the current one. Its sender sequence is neither checked nor
    /// recorded (an ephemeral message takes none).
    public func admitsEphemeral(_ header: GroupEnvelopeHeader) -> Bool {
        guard header.groupID == self.current.id, let named = self.held[header.membershipStateHash],
            named.version == header.membershipVersion
        else { return false }
        return named.member(header.sender) != nil && self.current.member(header.sender) != nil
    }

    mutating func recordSequence(_ header: GroupEnvelopeHeader) throws(GroupRefusal) -> [GroupWarning] {
        let last = self.lastSequence[header.sender]
        if let last, header.senderSequence <= last {
            throw GroupRefusal(
                .sequenceReused,
                "\(header.sender) used sequence \(header.senderSequence) in group \(header.groupID) after \(last)"
            )
        }
        self.lastSequence[header.sender] = header.senderSequence
        guard let last, header.senderSequence > last + 1 else { return [] }
        return [.missedMessages(from: header.sender, count: header.senderSequence - last - 1)]
    }

    static func recipientWarnings(
        _ header: GroupEnvelopeHeader,
        expected: Set<Token>,
        state: GroupState
    ) -> [GroupWarning] {
        let listed = Set(header.recipients.map(\.token))
        var warnings: [GroupWarning] = []
        if listed != expected {
            warnings.append(
                .recipientsDiffer(
                    extra: listed.subtracting(expected).sorted(),
                    missing: expected.subtracting(listed).sorted()
                )
            )
        }
        for recipient in header.recipients {
            if let member = state.member(recipient.token), member.fingerprint != recipient.fingerprint {
                warnings.append(.keyChanged(member: recipient.token))
            }
        }
        if let sender = state.member(header.sender), sender.fingerprint != header.senderFingerprint {
            warnings.append(.keyChanged(member: header.sender))
        }
        return warnings
    }

    private static func validate(_ state: GroupState) throws(GroupRefusal) {
        do {
            try state.validate()
        } catch {
            throw GroupRefusal(.malformed, (error as? WotsError)?.reason ?? "group state \(state.version) is invalid")
        }
    }
}
