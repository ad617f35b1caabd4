/// Why a member's client refused a group update or a group message: reported to the user, never applied or shown.
public struct GroupRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The update or message names another group.
        case wrongGroup
        /// The new state breaks a rule every state obeys.
        case malformed
        /// A change only an admin may make, by someone who is not an admin of the current state.
        case notAdmin
        /// The sender is not a member of the state the message names, or no longer of the current state.
        case notMember
        /// An update whose state is already known or older than the current one.
        case replayed
        /// An update built on another state than the current one at the same or an earlier version.
        case fork
        /// An update more than one version ahead: the receiver missed one.
        case gap
        /// The new state is not the current one with exactly the change the action names.
        case invalidChange
        /// A message names a membership state this member never held.
        case unknownState
        /// A sender sequence at or below one already seen from that sender.
        case sequenceReused
    }

    public var kind: Kind
    /// One human sentence naming the values and the rule.
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { self.reason }
}
