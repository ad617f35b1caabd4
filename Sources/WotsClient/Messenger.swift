public import Foundation
public import Logging
import WotsCore
import WotsCrypto

/// Everything the `wots` commands do, over one local store and one relay.
///
/// Commands parse and validate their arguments, then call one method here.
public struct Messenger: Sendable {
    /// Settings the executable reads from flags and the environment.
    public struct Configuration: Sendable {
        /// The relay given explicitly (`--relay` or `WOTS_RELAY`); nil to use the account's own relay, or the default.
        public var relay: String?
        /// The account folder.
        public var home: URL
        /// scrypt cost for newly sealed private records. Default `.standard`.
        public var keyDerivationCost: KeyDerivationCost = .standard
        /// Where the secret comes from.
        public var secret: SecretSource = .terminal

        /// The relay used when none is given and no account exists.
        public static let defaultRelay = "http://127.0.0.1:8080"

        public init(
            relay: String?,
            home: URL,
            keyDerivationCost: KeyDerivationCost = .standard,
            secret: SecretSource = .terminal
        ) {
            self.relay = relay
            self.home = home
            self.keyDerivationCost = keyDerivationCost
            self.secret = secret
        }
    }

    public let configuration: Configuration
    public let store: LocalStore
    public let relay: RelayClient
    let logger: Logger

    /// - Throws: `WotsError.invalidInput` for a relay URL that is not http(s).
    public init(configuration: Configuration, logger: Logger = Logger(label: "wots")) throws {
        self.configuration = configuration
        self.store = LocalStore(home: configuration.home)
        self.logger = logger
        var relay = configuration.relay
        if relay == nil, let profile = try? self.store.read(Profile.self, from: LocalStore.FileName.profile) {
            relay = profile.relay
        }
        self.relay = try RelayClient(baseURL: relay ?? Configuration.defaultRelay)
    }

    /// The local account with its private keys opened with the secret, and the relay client logged in as it.
    struct Unlocked: Sendable {
        var account: LocalAccount
        var identity: IdentityKeys
        /// Kept only for re-sealing during a rotation; never written anywhere.
        var secret: String

        var profile: Profile { self.account.profile }
        var token: Token { self.account.profile.token }
    }

    /// Opens the local account's private keys with the secret and sets the relay client to log in as it.
    /// - Throws: `WotsError.notRegistered`, `.wrongSecret`, `.secretUnavailable`.
    func unlock() async throws -> Unlocked {
        let account = try self.store.account()
        let secret = try self.configuration.secret.read(prompt: "Secret for \(account.profile.nickname): ")
        let identity: IdentityKeys
        do {
            identity = try account.privateRecord.openIdentity(secret: secret)
        } catch let error as WotsError where error.code == .wrongSecret {
            throw WotsError(.wrongSecret, "wrong secret for \(account.profile.nickname)")
        } catch {
            throw WotsError(.localStore, "cannot open the private keys in \(self.store.home.path): \(error)")
        }
        guard identity.fingerprint == account.profile.fingerprint else {
            throw WotsError(
                .localStore,
                "the private keys in \(self.store.home.path) do not match the profile's fingerprint; run `wots restore`"
            )
        }
        await self.relay.authenticate(as: account.profile.token, identity: identity)
        return Unlocked(account: account, identity: identity, secret: secret)
    }
}
