/// Published by `SaveCoordinator` when both halves of a registration landed.
public struct RegistrationSaved: Sendable, Hashable {
    public var token: Token
    public var nickname: Nickname

    public init(token: Token, nickname: Nickname) {
        self.token = token
        self.nickname = nickname
    }
}

/// Published by `SaveCoordinator` when a registration did not land; whatever half had landed was undone.
public struct RegistrationFailed: Sendable, Hashable {
    public var token: Token
    public var nickname: Nickname
    /// Why, from the first half that failed; mentions a failed undo too, should one happen.
    public var reason: String

    public init(token: Token, nickname: Nickname, reason: String) {
        self.token = token
        self.nickname = nickname
        self.reason = reason
    }
}
