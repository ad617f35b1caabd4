import WotsCore

/// The rules of one membership change: who may make it, and that the new state is the current one with exactly the
/// change its action names (SECURITY.md, "Membership chain"). Versions, hashes and the group id are checked by
/// `GroupChain` before this.
enum GroupTransition {
    static func check(
        _ action: GroupUpdate.Action,
        from current: GroupState,
        to next: GroupState,
        by sender: Token
    ) throws(GroupRefusal) {
        switch action {
        case .create:
            throw GroupRefusal(.invalidChange, "group \(current.id) exists already; it is created once")
        case .leave:
            try Self.checkLeave(from: current, to: next, by: sender)
            return
        case .rekey:
            try Self.checkRekey(from: current, to: next, by: sender)
            return
        case .add, .remove, .promote, .rename:
            guard current.isAdmin(sender) else {
                throw GroupRefusal(
                    .notAdmin,
                    "\(sender) is not an admin of group \(current.id) version \(current.version) and cannot \(action)"
                )
            }
        }
        let sameLook = next.name == current.name && next.avatar == current.avatar
        let before = Dictionary(uniqueKeysWithValues: current.members.map { ($0.token, $0) })
        let after = Dictionary(uniqueKeysWithValues: next.members.map { ($0.token, $0) })
        let kept = before.keys.filter { after[$0] != nil }
        let valid: Bool
        switch action {
        case .add:
            let added = next.members.filter { before[$0.token] == nil }
            valid =
                sameLook && kept.count == before.count && !added.isEmpty
                && kept.allSatisfy { before[$0] == after[$0] }
                && added.allSatisfy { !$0.isAdmin && $0.joinedAt == next.version }
        case .remove:
            valid =
                sameLook && kept.count == after.count && kept.count < before.count && after[sender] != nil
                && kept.allSatisfy { before[$0] == after[$0] }
        case .promote:
            let promoted = kept.filter { before[$0]?.isAdmin == false && after[$0]?.isAdmin == true }
            valid =
                sameLook && kept.count == before.count && kept.count == after.count && !promoted.isEmpty
                && kept.allSatisfy { token in
                    var was = before[token]
                    if promoted.contains(token) { was?.isAdmin = true }
                    return was == after[token]
                }
        case .rename:
            valid = !sameLook && current.members == next.members
        case .create, .leave, .rekey:
            valid = false
        }
        guard valid else {
            throw GroupRefusal(
                .invalidChange,
                "group \(current.id) version \(next.version) is not version \(current.version) with only a \(action)"
            )
        }
    }

    /// `rekey`: one or more members' recorded key fingerprints changed and nothing else; an admin may record anyone's,
    /// any member only its own (SECURITY.md, "Key changes in groups").
    private static func checkRekey(from current: GroupState, to next: GroupState, by sender: Token)
        throws(GroupRefusal)
    {
        guard current.member(sender) != nil else {
            throw GroupRefusal(.notMember, "\(sender) is not a member of group \(current.id) and cannot record keys")
        }
        let unchanged =
            next.name == current.name && next.avatar == current.avatar
            && next.members.map(\.token) == current.members.map(\.token)
            && zip(current.members, next.members).allSatisfy { $0.isAdmin == $1.isAdmin && $0.joinedAt == $1.joinedAt }
        let rekeyed = zip(current.members, next.members).filter { $0.fingerprint != $1.fingerprint }.map { $0.0.token }
        guard unchanged, !rekeyed.isEmpty else {
            throw GroupRefusal(
                .invalidChange,
                "group \(current.id) version \(next.version) is not version \(current.version) with only new keys"
            )
        }
        guard current.isAdmin(sender) || rekeyed == [sender] else {
            throw GroupRefusal(
                .notAdmin,
                "\(sender) is not an admin of group \(current.id) version \(current.version) and may record only its "
                    + "own key"
            )
        }
    }

    /// `leave`: the sender removed and nothing else, except that when no admin is left the longest-standing member
    /// (smallest `joinedAt`, then smallest token) becomes admin, and only it.
    private static func checkLeave(from current: GroupState, to next: GroupState, by sender: Token)
        throws(GroupRefusal)
    {
        guard current.member(sender) != nil else {
            throw GroupRefusal(.notMember, "\(sender) is not a member of group \(current.id) and cannot leave it")
        }
        guard current.members.count >= 2 else {
            throw GroupRefusal(.invalidChange, "the last member of group \(current.id) leaves without an update")
        }
        var expected = current.members.filter { $0.token != sender }
        if !expected.contains(where: \.isAdmin),
            let heir = expected.indices.min(by: {
                (expected[$0].joinedAt, expected[$0].token) < (expected[$1].joinedAt, expected[$1].token)
            })
        {
            expected[heir].isAdmin = true
        }
        guard next.members == expected, next.name == current.name, next.avatar == current.avatar else {
            throw GroupRefusal(
                .invalidChange,
                "group \(current.id) version \(next.version) is not version \(current.version) without \(sender)"
            )
        }
    }
}
