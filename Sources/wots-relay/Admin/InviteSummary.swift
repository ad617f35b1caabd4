import Foundation
import WotsStorage

/// One invite as `admin invites` prints it (`--json`: this object). The code itself appears only in the answer to
/// `invites create`.
struct InviteSummary: Encodable, Sendable {
    var id: String
    /// Only right after creation.
    var code: String?
    var uses: Int
    var maximumUses: Int
    var createdAt: Date
    var expiresAt: Date?
    var revokedAt: Date?
    var standing: Invite.Standing

    init(_ invite: Invite, code: String? = nil, now: Date = Date()) {
        self.id = invite.id
        self.code = code
        self.uses = invite.uses
        self.maximumUses = invite.maximumUses
        self.createdAt = invite.createdAt
        self.expiresAt = invite.expiresAt
        self.revokedAt = invite.revokedAt
        self.standing = invite.standing(at: now)
    }

    var line: String {
        let expiry = self.expiresAt.map { "expires \($0.formatted(.iso8601))" } ?? "never expires"
        return "\(self.id)  \(self.standing.rawValue)  used \(self.uses)/\(self.maximumUses)  "
            + "created \(self.createdAt.formatted(.iso8601))  \(expiry)"
    }
}
