public import Foundation
public import WotsCore

/// A live bearer session: whose it is and until when it may be used.
public struct ActiveSession: Sendable, Hashable {
    public var token: Token
    public var expiresAt: Date

    public init(token: Token, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
