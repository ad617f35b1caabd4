public import WotsCrypto

/// Kept keys live in the session keyring as `0x01 || encryption key(32) || authentication key(32)`, described by the
/// account's token and relay so two accounts (or one token at two relays) never share an entry.
extension SessionKeyring: UnlockCache {
    static let payloadVersion: UInt8 = 1
    static let payloadSize = 65

    /// The key description: `wots:unlocked:v1:TOKEN@RELAY`.
    static func description(for profile: Profile) -> String {
        "wots:unlocked:v1:\(profile.token)@\(profile.relay)"
    }

    public func keys(for profile: Profile) throws -> SecretKeys? {
        guard var payload = try self.read(Self.description(for: profile)) else { return nil }
        defer { cleanse(&payload) }
        guard payload.count == Self.payloadSize, payload[0] == Self.payloadVersion else {
            // Not ours or from another version: useless either way.
            try self.remove(Self.description(for: profile))
            return nil
        }
        return SecretKeys(encryptionKey: Array(payload[1..<33]), authenticationKey: Array(payload[33..<65]))
    }

    public func keep(_ keys: SecretKeys, for profile: Profile, duration: Duration) throws {
        var payload = [Self.payloadVersion] + keys.encryptionKey + keys.authenticationKey
        defer { cleanse(&payload) }
        try self.store(payload, description: Self.description(for: profile), timeout: duration)
    }

    @discardableResult
    public func forget(_ profile: Profile) throws -> Bool {
        try self.remove(Self.description(for: profile))
    }
}
