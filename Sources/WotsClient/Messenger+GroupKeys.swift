import Foundation
public import WotsCore

extension Messenger {
    /// Records members' current keys in the group state (a `rekey` update): after a member rotated its keys and the
    /// others compared safety numbers, the group stops warning that the key is not the one it recorded. An admin may
    /// record anyone's key, any member its own (no `nicknames`).
    ///
    /// Each key recorded is the one pinned here: a member whose published key differs from the pinned one is refused
    /// (`key_changed`) until `wots trust NICK`, so nobody records a key they have not accepted.
    /// - Throws: `invalid_input` when the group already records those keys or this account may not record them.
    public func rekeyGroup(_ group: String, members nicknames: [Nickname]) async throws -> GroupSummary {
        try await self.changeGroup(group, .rekey) { current, unlocked in
            var keys: [Token: Fingerprint] = [:]
            if nicknames.isEmpty { keys[unlocked.token] = unlocked.profile.fingerprint }
            for nickname in nicknames {
                let entry = try await self.recipient(nickname).entry
                guard current.member(entry.token) != nil else {
                    throw WotsError(.invalidInput, "\(nickname) is not a member of \(current.name)")
                }
                keys[entry.token] = entry.fingerprint
            }
            let members = current.members.map { member in
                var changed = member
                if let fingerprint = keys[member.token] { changed.fingerprint = fingerprint }
                return changed
            }
            guard members != current.members else {
                throw WotsError(.invalidInput, "\(current.name) records those keys already; nothing to do")
            }
            return members
        }
    }

    /// One line per member of `state` whose key is not what the group recorded, or not what this machine pinned,
    /// with the safety-number steps that settle it. Members the directory cannot show are left out.
    func keyWarnings(for state: GroupState, as unlocked: Unlocked) async -> [String] {
        var warnings: [String] = []
        if let mine = state.member(unlocked.token), mine.fingerprint != unlocked.profile.fingerprint {
            warnings.append(
                "your key is not the one \(state.name) recorded (you rotated it?): `wots group rekey \(state.name)` "
                    + "records it"
            )
        }
        guard let contacts = try? self.store.contactBook() else { return warnings }
        for member in state.members where member.token != unlocked.token {
            guard let entry = try? await self.verifiedEntry(token: member.token) else { continue }
            let name = entry.nickname.value
            if case .changed = contacts.verdict(for: entry) {
                warnings.append(
                    "\(name)'s key changed since you pinned it: messages to \(state.name) are refused until you "
                        + "compare `wots verify \(name)` with them and run `wots trust \(name)`"
                )
            } else if entry.fingerprint != member.fingerprint {
                warnings.append(
                    "\(name)'s key is not the one \(state.name) recorded: compare `wots verify \(name)` with them, "
                        + "then an admin records it with `wots group rekey \(state.name) \(name)`"
                )
            }
        }
        return warnings
    }
}
