import WotsCore
import WotsCrypto
import WotsTesting

/// The account every input is opened for: alice's token, fixed keys, and alice's identity sealed with them.
enum Fixture {
    static let token = TestIdentities.alice.token
    static let keys = SecretKeys(
        encryptionKey: [UInt8](repeating: 0x11, count: 32),
        authenticationKey: [UInt8](repeating: 0x22, count: 32)
    )
    static let record = try! PrivateRecord.seal(
        identity: TestIdentities.alice.identity,
        token: token,
        keys: keys,
        parameters: KeyDerivationParameters(salt: [UInt8](repeating: 0x33, count: 16))
    )
}
