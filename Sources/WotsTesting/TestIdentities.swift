import Foundation
import WotsCore
import WotsCrypto

/// Four pre-generated identities for tests (alice, bob, carol, mallory), loaded once from `Fixtures/`.
///
/// Their private keys are public knowledge: test use only.
public enum TestIdentities {
    public static let alice = load("alice", token: "zijosdxwlrzlbou3pc4us3bmii")
    public static let bob = load("bob", token: "psvnq2utkat2kvrmi2s4erjzcm")
    public static let carol = load("carol", token: "y4b3zyhqf3dy2l5lhkkpgijm7a")
    /// The attacker: a registered user who tries to read, forge or replay others' messages.
    public static let mallory = load("mallory", token: "6wy74lydisrbtwgsbjpqtmpy5m")

    public static var all: [TestIdentity] { [alice, bob, carol, mallory] }

    /// The PKCS#8 DER of a fixture private key, e.g. `privateKeyDER("alice", "signing")`.
    public static func privateKeyDER(_ name: String, _ use: String) -> [UInt8] {
        let file = "\(name)-\(use)"
        guard let url = Bundle.module.url(forResource: file, withExtension: "pem", subdirectory: "Fixtures"),
            let pem = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("test fixture Fixtures/\(file).pem is missing from the WotsTesting bundle") }
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body) else { fatalError("test fixture \(file).pem is not PEM") }
        return Array(der)
    }

    private static func load(_ name: String, token: String) -> TestIdentity {
        do {
            return TestIdentity(
                token: try Token(token),
                nickname: try Nickname(name),
                identity: try IdentityKeys(
                    signingPKCS8DER: privateKeyDER(name, "signing"),
                    encryptionPKCS8DER: privateKeyDER(name, "encryption")
                ),
                secret: "\(name)'s correct horse battery staple"
            )
        } catch {
            fatalError("test fixture identity \(name) does not load: \(error)")
        }
    }
}
