import WotsCore
import WotsCrypto

/// The account every input is opened for: a fixed token and keys, and one real record sealed with them.
enum Fixture {
    static let token = try! Token("zijosdxwlrzlbou3pc4us3bmii")
    static let keys = SecretKeys(
        encryptionKey: [UInt8](repeating: 0x11, count: 32),
        authenticationKey: [UInt8](repeating: 0x22, count: 32)
    )
    static let record = try! PrivateRecord.seal(
        identity: try! IdentityKeys.generate(),
        token: token,
        keys: keys,
        parameters: KeyDerivationParameters(salt: [UInt8](repeating: 0x33, count: 16))
    )
}
