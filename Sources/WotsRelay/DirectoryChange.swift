import WotsCore

/// Published when the directory changes, for WebSocket clients that asked to hear about it.
struct DirectoryChange: Sendable, Hashable {
    enum Kind: String, Sendable {
        case registered, rotated, deleted
    }

    var kind: Kind
    var nickname: Nickname
}
