public import Foundation

/// An invitation to register on a relay that registers by invitation. Only the SHA-256 of its code is stored, so
/// the database alone never yields a usable code.
public struct Invite: Sendable, Hashable {
    /// Whether an invite can still be redeemed, and if not, why.
    public enum Standing: String, Sendable, Hashable, Codable {
        case usable
        case usedUp = "used_up"
        case expired
        case revoked
    }

    /// A short name the operator uses to list and revoke it; derived from the hash, so it reveals nothing usable.
    public var id: String
    /// SHA-256 of the code.
    public var codeHash: [UInt8]
    /// How many registrations it admits.
    public var maximumUses: Int
    /// How many registrations it admitted so far.
    public var uses: Int
    public var createdAt: Date
    /// Nil: it never expires.
    public var expiresAt: Date?
    public var revokedAt: Date?

    public init(
        id: String,
        codeHash: [UInt8],
        maximumUses: Int,
        uses: Int = 0,
        createdAt: Date,
        expiresAt: Date? = nil,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.codeHash = codeHash
        self.maximumUses = maximumUses
        self.uses = uses
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// The invite's standing at `now`; revocation wins over every other reason.
    public func standing(at now: Date) -> Standing {
        if self.revokedAt != nil { return .revoked }
        if let expiresAt = self.expiresAt, expiresAt <= now { return .expired }
        if self.uses >= self.maximumUses { return .usedUp }
        return .usable
    }
}
