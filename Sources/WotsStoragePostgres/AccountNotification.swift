import WotsCore

/// The payload of a `NOTIFY wots_mail` that says an account changed (keys rotated, account deleted), so other relay
/// processes drop what they keep about it.
///
/// Spelled `NODE-ID account TOKEN`; a mail notification's second word is a token, never `account`.
struct AccountNotification: Sendable, Hashable {
    static let marker = "account"

    var nodeID: String
    var token: Token

    var payload: String { "\(self.nodeID) \(Self.marker) \(self.token)" }

    init(nodeID: String, token: Token) {
        self.nodeID = nodeID
        self.token = token
    }

    /// Parses a payload; nil when it is not an account notification.
    init?(payload: String) {
        let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1] == Self.marker, let token = try? Token(String(parts[2]))
        else { return nil }
        self.init(nodeID: String(parts[0]), token: token)
    }
}
