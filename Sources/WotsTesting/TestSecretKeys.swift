import Synchronization
public import WotsCore
public import WotsCrypto

/// Keys derived from each test identity's secret at the standard scrypt cost, derived once per process: every
/// client and relay refuses a cheaper cost, and tests seal many records.
public enum TestSecretKeys {
    private static let cache = Mutex<[String: (KeyDerivationParameters, SecretKeys)]>([:])

    /// The parameters (a salt fixed per secret) and the keys they derive from `secret`.
    public static func derived(from secret: String) throws -> (parameters: KeyDerivationParameters, keys: SecretKeys) {
        if let known = Self.cache.withLock({ $0[secret] }) { return known }
        let salt = SHA256.hash(Array("wots-test-salt\u{0}\(secret)".utf8)).prefix(16)
        let parameters = KeyDerivationParameters(salt: Array(salt))
        let keys = try SecretKeys.derive(secret: secret, parameters: parameters)
        Self.cache.withLock { $0[secret] = (parameters, keys) }
        return (parameters, keys)
    }
}
