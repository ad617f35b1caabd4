/**
 * Why a member's client refused a group update or message (reported, never applied or shown), and what it shows
 * beside an accepted one. As WotsClient's `GroupRefusal` and `GroupWarning`.
 */

export const GroupRefusalKind = Object.freeze({
    /** The update or message names another group. */
    wrongGroup: 'wrongGroup',
    /** The new state breaks a rule every state obeys. */
    malformed: 'malformed',
    /** A change only an admin may make, by someone who is not an admin of the current state. */
    notAdmin: 'notAdmin',
    /** The sender is not a member of the state the message names, or no longer of the current state. */
    notMember: 'notMember',
    /** An update whose state is already known or older than the current one. */
    replayed: 'replayed',
    /** An update built on another state than the current one at the same or an earlier version. */
    fork: 'fork',
    /** An update more than one version ahead: the receiver missed one. */
    gap: 'gap',
    /** The new state is not the current one with exactly the change the action names. */
    invalidChange: 'invalidChange',
    /** A message names a membership state this member never held. */
    unknownState: 'unknownState',
    /** A sender sequence at or below one already seen from that sender. */
    sequenceReused: 'sequenceReused',
});

export class GroupRefusal extends Error {
    /**
     * @param {string} kind one of `GroupRefusalKind`
     * @param {string} reason one sentence naming the values and the rule
     */
    constructor(kind, reason) {
        super(reason);
        this.name = 'GroupRefusal';
        this.kind = kind;
        this.reason = reason;
    }
}

/** What a member's client shows beside an accepted group message or update. */
export const GroupWarning = Object.freeze({
    /** The signed recipient list is not the named state's members minus the sender (tokens as strings). */
    recipientsDiffer: (extra, missing) => ({ kind: 'recipientsDiffer', extra, missing }),
    /** The sender's sequence jumped: `count` of its messages did not reach this member. */
    missedMessages: (from, count) => ({ kind: 'missedMessages', from, count }),
    /** A member's key is not the one the group state recorded. */
    keyChanged: (member) => ({ kind: 'keyChanged', member }),
});
