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
        /// The certificate authorities an `https://` relay may be signed by. Default the system's.
        public var trust: RelayTrust = .system
        /// Where the secret comes from.
        public var secret: SecretSource = .terminal
        /// Where `unlockSession(for:)` keeps derived keys and where commands look for them before asking for the
        /// secret (never when the secret is given explicitly). Default none: the secret is read every time.
        public var unlockCache: (any UnlockCache)?
        /// Told one-line notes for the user (a kept key that no longer works, an unavailable keyring).
        public var notice: @Sendable (String) -> Void = { _ in }
        /// What time it is, for deciding which disappearing messages expired. Default the system clock.
        public var now: @Sendable () -> Date = { Date() }

        /// The relay used when none is given and no account exists.
        public static let defaultRelay = "http://127.0.0.1:8080"

        public init(
            relay: String?,
            home: URL,
            trust: RelayTrust = .system,
            secret: SecretSource = .terminal,
            unlockCache: (any UnlockCache)? = nil,
            notice: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.relay = relay
            self.home = home
            self.trust = trust
            self.secret = secret
            self.unlockCache = unlockCache
            self.notice = notice
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
        self.relay = try RelayClient(baseURL: relay ?? Configuration.defaultRelay, trust: configuration.trust)
    }
}
