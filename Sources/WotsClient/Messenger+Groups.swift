import Foundation
public import WotsCore
import WotsCrypto

extension Messenger {
    /// Creates a group with this account as its admin and `members` (pinned on first use; a changed key is refused).
    ///
    /// The `create` update goes to every member and back to this account; the group exists here once the relay hands
    /// it back (SECURITY.md, "Membership chain"), which this call waits for by taking in the group mailbox.
    /// - Throws: `invalid_input` for a bad name or member list, `key_changed`, `unknown_nickname`, the relay's refusal.
    /// - Parameter avatar: the group's avatar preset, which every member sees; default none.
    public func createGroup(
        named name: String,
        members nicknames: [Nickname],
        avatar: Avatar.Preset? = nil
    ) async throws -> GroupSummary {
        let unlocked = try await self.unlock()
        var members = [
            GroupMember(token: unlocked.token, fingerprint: unlocked.profile.fingerprint, isAdmin: true, joinedAt: 1)
        ]
        for entry in try await self.memberEntries(nicknames, excluding: members.map(\.token)) {
            members.append(GroupMember(token: entry.token, fingerprint: entry.fingerprint, joinedAt: 1))
        }
        let state = GroupState(
            id: try GroupID(bytes: SecureRandom.bytes(GroupID.byteCount)),
            version: 1,
            previous: GroupState.noPreviousState,
            name: name,
            avatar: avatar,
            members: members
        )
        do {
            try state.validate()
        } catch let error as WotsError {
            throw WotsError(.invalidInput, error.reason)
        }
        return try await self.publish(GroupUpdate(action: .create, state: state), naming: state, as: unlocked)
    }

    /// Adds members (pinned on first use). Only an admin may.
    public func addToGroup(_ group: String, members nicknames: [Nickname]) async throws -> GroupSummary {
        try await self.changeGroup(group, .add) { current, unlocked in
            let entries = try await self.memberEntries(nicknames, excluding: [])
            if let present = entries.first(where: { current.member($0.token) != nil }) {
                throw WotsError(.invalidInput, "\(present.nickname) is a member of \(current.name) already")
            }
            let version = current.version + 1
            return current.members
                + entries.map { GroupMember(token: $0.token, fingerprint: $0.fingerprint, joinedAt: version) }
        }
    }

    /// Removes members. Only an admin may; an admin leaves with `leaveGroup` instead.
    public func removeFromGroup(_ group: String, members nicknames: [Nickname]) async throws -> GroupSummary {
        try await self.changeGroup(group, .remove) { current, unlocked in
            let contacts = try self.store.contactBook()
            var removed: Set<Token> = []
            for nickname in nicknames {
                guard let token = contacts.contact(named: nickname)?.token,
                    current.member(token) != nil
                else {
                    throw WotsError(.invalidInput, "\(nickname) is not a member of \(current.name)")
                }
                removed.insert(token)
            }
            return current.members.filter { !removed.contains($0.token) }
        }
    }

    /// Leaves the group; when no admin would be left, the longest-standing member becomes one.
    public func leaveGroup(_ group: String) async throws -> GroupSummary {
        try await self.changeGroup(group, .leave) { current, unlocked in
            guard current.members.count >= 2 else {
                throw WotsError(.invalidInput, "you are the last member of \(current.name); there is no one to tell")
            }
            var rest = current.members.filter { $0.token != unlocked.token }
            if !rest.contains(where: \.isAdmin),
                let heir = rest.indices.min(by: {
                    (rest[$0].joinedAt, rest[$0].token) < (rest[$1].joinedAt, rest[$1].token)
                })
            {
                rest[heir].isAdmin = true
            }
            return rest
        }
    }

    /// Makes members admins. Only an admin may.
    public func promoteInGroup(_ group: String, members nicknames: [Nickname]) async throws -> GroupSummary {
        try await self.changeGroup(group, .promote) { current, unlocked in
            let contacts = try self.store.contactBook()
            let promoted = Set(nicknames.compactMap { contacts.contact(named: $0)?.token })
            return current.members.map { member in
                var changed = member
                if promoted.contains(member.token) { changed.isAdmin = true }
                return changed
            }
        }
    }

    /// Gives the group a new name (a label every member sees), a new avatar preset, or both. Only an admin may.
    /// - Parameters:
    ///   - name: the new name; nil keeps it.
    ///   - avatar: `.some(preset)` sets the avatar, `.some(nil)` removes it, nil keeps it.
    public func renameGroup(_ group: String, to name: String?, avatar: Avatar.Preset?? = nil) async throws
        -> GroupSummary
    {
        try await self.changeGroup(group, .rename, name: name, avatar: avatar) { current, _ in current.members }
    }

    /// The groups known here, this account's current ones first.
    public func groups() throws -> [GroupSummary] {
        let contacts = try self.store.contactBook()
        let profile = try self.store.account().profile
        return try self.store.groupBook().chains.map { self.summary($0, contacts: contacts, profile: profile) }
            .sorted { $0.member && !$1.member }
    }

    /// One group after taking in the group mailbox, each member's key checked against the directory: `changed` when
    /// the published key is not the pinned one.
    public func showGroup(_ group: String) async throws -> GroupSummary {
        let unlocked = try await self.unlock()
        try await self.syncGroups(unlocked)
        let contacts = try self.store.contactBook()
        let chain = try self.store.groupBook().resolve(group)
        var summary = self.summary(chain, contacts: contacts, profile: unlocked.profile)
        for index in summary.members.indices where summary.members[index].token != unlocked.token {
            let token = summary.members[index].token
            guard let entry = try? await self.verifiedEntry(token: token) else { continue }
            summary.members[index].nickname = entry.nickname
            switch contacts.verdict(for: entry) {
            case .unknown: summary.members[index].key = .unpinned
            case .pinned: summary.members[index].key = .pinned
            case .changed: summary.members[index].key = .changed
            }
            summary.members[index].keyRecorded = entry.fingerprint == summary.members[index].fingerprint
        }
        for index in summary.members.indices where summary.members[index].token == unlocked.token {
            summary.members[index].keyRecorded = unlocked.profile.fingerprint == summary.members[index].fingerprint
        }
        let history = try self.openHistory(unlocked)
        summary.disappearAfter = UInt32(
            clamping: try history.disappearAfter(with: try Self.historyPeer(of: chain.current.id))
        )
        return summary
    }

    /// The group's conversation, oldest first.
    public func groupHistory(_ group: String) async throws -> (group: GroupSummary, items: [HistoryItem]) {
        let unlocked = try await self.unlock()
        let contacts = try self.store.contactBook()
        let chain = try self.store.groupBook().resolve(group)
        let history = try self.openHistory(unlocked)
        _ = try self.removeExpired(from: history, now: self.configuration.now())
        let items = try history.entries(with: try Self.historyPeer(of: chain.current.id)).map { entry in
            let outgoing = entry.sender == unlocked.token
            var item = HistoryItem(
                entry,
                from: outgoing ? unlocked.profile.nickname : contacts.contact(token: entry.sender)?.nickname
            )
            item.isOutgoing = outgoing
            if outgoing {
                let statuses = try history.memberStatuses(of: entry.key)
                if !statuses.isEmpty {
                    item.receipts = HistoryItem.GroupReceipts(statuses) { contacts.contact(token: $0)?.nickname }
                }
            }
            return item
        }
        return (self.summary(chain, contacts: contacts, profile: unlocked.profile), items)
    }

    func summary(_ chain: GroupChain, contacts: ContactBook, profile: Profile) -> GroupSummary {
        var summary = GroupSummary(chain, contacts: contacts)
        for index in summary.members.indices where summary.members[index].token == profile.token {
            summary.members[index].nickname = profile.nickname
        }
        return summary
    }
}
