/// The `group_update` content: a membership change and the whole state it produces.
///
/// JSON: `{"type":"group_update","action":ACTION,"state":STATE}` (SECURITY.md, "Membership chain").
public struct GroupUpdate: Sendable, Hashable, Codable {
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        case create, add, remove, leave, promote, rename, rekey
    }

    public var action: Action
    public var state: GroupState

    public init(action: Action, state: GroupState) {
        self.action = action
        self.state = state
    }
}
