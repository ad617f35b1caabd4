import Foundation
import WotsCore
import WotsCrypto

extension Messenger {
    /// Builds the next state of `group` with the members `change` returns (and `name` and `avatar`, if given), checks
    /// it as every receiver will (`GroupTransition`), and publishes it.
    /// - Throws: `invalid_input` when this account may not make the change or the result breaks a rule.
    func changeGroup(
        _ group: String,
        _ action: GroupUpdate.Action,
        name: String? = nil,
        avatar: Avatar.Preset?? = nil,
        members change: (GroupState, Unlocked) async throws -> [GroupMember]
    ) async throws -> GroupSummary {
        let unlocked = try await self.unlock()
        try await self.syncGroups(unlocked)
        let chain = try self.store.groupBook().resolve(group)
        let current = chain.current
        guard chain.isMember else {
            throw WotsError(.invalidInput, "you are no longer a member of \(current.name)")
        }
        let next = GroupState(
            id: current.id,
            version: current.version + 1,
            previous: chain.currentHash,
            name: name ?? current.name,
            avatar: avatar ?? current.avatar,
            members: try await change(current, unlocked)
        )
        do {
            try next.validate()
            try GroupTransition.check(action, from: current, to: next, by: unlocked.token)
        } catch let refusal as GroupRefusal {
            throw WotsError(.invalidInput, refusal.reason)
        } catch let error as WotsError {
            throw WotsError(.invalidInput, error.reason)
        }
        return try await self.publish(GroupUpdate(action: action, state: next), naming: current, as: unlocked)
    }

    /// Sends an update to the union of the old and the new members, this account included, then takes in the group
    /// mailbox: an admin applies its own update only when the relay hands it back (SECURITY.md, "Membership chain").
    /// - Throws: `invalid_input` when the update did not apply here (a concurrent change came first).
    func publish(_ update: GroupUpdate, naming named: GroupState, as unlocked: Unlocked) async throws -> GroupSummary {
        let recipients = Array(Set(named.tokens + update.state.tokens + [unlocked.token]))
        _ = try await self.postGroup(.groupUpdate(update), naming: named, to: recipients, as: unlocked)
        try await self.syncGroups(unlocked)
        let profile = unlocked.profile
        guard let chain = try self.store.groupBook().chain(update.state.id),
            chain.held[update.state.stateHash] != nil
        else {
            throw WotsError(
                .invalidInput,
                "the relay took the \(update.action) of \(update.state.name) but it did not apply here "
                    + "(a concurrent change came first?); see `wots inbox`"
            )
        }
        return self.summary(chain, contacts: try self.store.contactBook(), profile: profile)
    }

    /// The directory entries of `nicknames`, each proven by the log and checked against the contact book (pinned on
    /// first use, a changed key refused), skipping duplicates and `excluding`.
    func memberEntries(_ nicknames: [Nickname], excluding: [Token]) async throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        for nickname in nicknames {
            let entry = try await self.recipient(nickname).entry
            guard !excluding.contains(entry.token), !entries.contains(where: { $0.token == entry.token }) else {
                continue
            }
            entries.append(entry)
        }
        return entries
    }
}
