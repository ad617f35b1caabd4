/**
 * The rules of one membership change (SECURITY.md, "Membership chain"), as WotsClient's `GroupTransition`: who may make
 * it, and that the new state is the current one with exactly the change its action names. Versions, hashes and the
 * group id are checked by `GroupChain` before this.
 */

import { GroupRefusal, GroupRefusalKind } from './group-refusal.js';

export const GroupAction = Object.freeze(['create', 'add', 'remove', 'leave', 'promote', 'rename', 'rekey']);

/**
 * @param {string} action one of `GroupAction`
 * @param {import('../crypto/group-state.js').GroupState} current
 * @param {import('../crypto/group-state.js').GroupState} next
 * @param {import('../crypto/token.js').Token} sender
 * @throws {GroupRefusal} `invalidChange`, `notAdmin` or `notMember` naming the rule
 */
export function checkTransition(action, current, next, sender) {
    if (action === 'create') {
        throw new GroupRefusal(GroupRefusalKind.invalidChange,
            `group ${current.id} exists already; it is created once`);
    }
    if (action === 'leave') {
        checkLeave(current, next, sender);
        return;
    }
    if (action === 'rekey') {
        checkRekey(current, next, sender);
        return;
    }
    if (!current.isAdmin(sender)) {
        throw new GroupRefusal(GroupRefusalKind.notAdmin,
            `${sender} is not an admin of group ${current.id} version ${current.version} and cannot ${action}`);
    }
    const sameLook = next.name === current.name && next.avatar === current.avatar;
    const before = new Map(current.members.map((member) => [String(member.token), member]));
    const after = new Map(next.members.map((member) => [String(member.token), member]));
    const kept = [...before.keys()].filter((token) => after.has(token));
    const unchanged = (token) => before.get(token).equals(after.get(token));
    let valid = false;
    if (action === 'add') {
        const added = next.members.filter((member) => !before.has(String(member.token)));
        valid = sameLook && kept.length === before.size && added.length > 0 && kept.every(unchanged)
            && added.every((member) => !member.isAdmin && member.joinedAt === next.version);
    } else if (action === 'remove') {
        valid = sameLook && kept.length === after.size && kept.length < before.size && after.has(String(sender))
            && kept.every(unchanged);
    } else if (action === 'promote') {
        const promoted = kept.filter((token) => !before.get(token).isAdmin && after.get(token).isAdmin);
        valid = sameLook && kept.length === before.size && kept.length === after.size && promoted.length > 0
            && kept.every((token) => before.get(token).withAdmin(before.get(token).isAdmin || promoted.includes(token))
                .equals(after.get(token)));
    } else if (action === 'rename') {
        valid = !sameLook && sameMembers(current.members, next.members);
    }
    if (!valid) {
        throw new GroupRefusal(GroupRefusalKind.invalidChange,
            `group ${current.id} version ${next.version} is not version ${current.version} with only a ${action}`);
    }
}

/**
 * The members a `leave` by `sender` leaves behind: everyone else, and when no admin is left the longest-standing
 * member (smallest `joinedAt`, then smallest token) made admin, and only it.
 */
export function membersAfterLeaving(current, sender) {
    const rest = current.members.filter((member) => !member.token.equals(sender));
    if (rest.length === 0 || rest.some((member) => member.isAdmin)) return rest;
    // Members are sorted by token, so the first with the smallest joinedAt is the heir.
    let heir = 0;
    for (let i = 1; i < rest.length; i++) if (rest[i].joinedAt < rest[heir].joinedAt) heir = i;
    return rest.map((member, index) => (index === heir ? member.withAdmin(true) : member));
}

/**
 * `rekey`: one or more members' recorded key fingerprints changed and nothing else (names, avatar, members, roles and
 * `joinedAt` as they were); an admin may record anyone's key, any other member only its own.
 */
function checkRekey(current, next, sender) {
    if (current.member(sender) === null) {
        throw new GroupRefusal(GroupRefusalKind.notMember,
            `${sender} is not a member of group ${current.id} and cannot record keys`);
    }
    const unchanged = next.name === current.name && next.avatar === current.avatar
        && next.members.length === current.members.length
        && next.members.every((member, index) => {
            const before = current.members[index];
            return member.token.equals(before.token) && member.isAdmin === before.isAdmin
                && member.joinedAt === before.joinedAt;
        });
    const rekeyed = unchanged
        ? current.members.filter((member, index) => !member.fingerprint.equals(next.members[index].fingerprint))
        : [];
    if (rekeyed.length === 0) {
        throw new GroupRefusal(GroupRefusalKind.invalidChange,
            `group ${current.id} version ${next.version} is not version ${current.version} with only new keys`);
    }
    if (!current.isAdmin(sender) && !(rekeyed.length === 1 && rekeyed[0].token.equals(sender))) {
        throw new GroupRefusal(GroupRefusalKind.notAdmin, `${sender} is not an admin of group ${current.id} version `
            + `${current.version} and may record only its own key`);
    }
}

function checkLeave(current, next, sender) {
    if (current.member(sender) === null) {
        throw new GroupRefusal(GroupRefusalKind.notMember,
            `${sender} is not a member of group ${current.id} and cannot leave it`);
    }
    if (current.members.length < 2) {
        throw new GroupRefusal(GroupRefusalKind.invalidChange,
            `the last member of group ${current.id} leaves without an update`);
    }
    const expected = membersAfterLeaving(current, sender);
    if (!sameMembers(next.members, expected) || next.name !== current.name || next.avatar !== current.avatar) {
        throw new GroupRefusal(GroupRefusalKind.invalidChange,
            `group ${current.id} version ${next.version} is not version ${current.version} without ${sender}`);
    }
}

function sameMembers(a, b) {
    return a.length === b.length && a.every((member, index) => member.equals(b[index]));
}
