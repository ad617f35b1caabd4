import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create identity keys and register a nickname.",
        discussion: """
            Makes two RSA-2048 key pairs, seals the private keys with your secret, and registers the public keys \
            at the relay and the sealed keys in the home folder: both land, or neither does. Prints the token and \
            the fingerprint. --json prints {"nickname", "token", "fingerprint", "relay"}.
            """
    )

    @ParentCommand var root: Wots
    @OptionGroup var secret: SecretOptions

    @Option(name: .long, help: "Nickname: \(Nickname.rules); case-insensitive.")
    var nick: String

    @Option(name: .long, help: ArgumentHelp("A PNG or JPEG picture of at most 64 KiB.", valueName: "FILE"))
    var avatar: String?

    @Option(
        name: .customLong("avatar-preset"),
        help: ArgumentHelp(
            "A preset picture: \(Avatar.Preset.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "NAME"
        )
    )
    var avatarPreset: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The invite code the relay's operator gave you (relays that register by invitation).",
            discussion: "Defaults to $WOTS_INVITE.",
            valueName: "CODE"
        )
    )
    var invite: String?

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        _ = try parseNickname(self.nick, registering: true)
        if self.avatar != nil, self.avatarPreset != nil {
            throw ValidationError("give --avatar or --avatar-preset, not both")
        }
        if let avatarPreset {
            do {
                _ = try Avatar.preset(named: avatarPreset)
            } catch let error as WotsError {
                throw ValidationError(error.reason)
            }
        }
    }

    func run() async throws {
        let nickname = try parseNickname(self.nick, registering: true)
        var chosen: Avatar?
        if let avatar { chosen = try Avatar.load(file: URL(fileURLWithPath: avatar)) }
        if let avatarPreset { chosen = try Avatar.preset(named: avatarPreset) }
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let invite = self.invite ?? ProcessInfo.processInfo.environment["WOTS_INVITE"]
        let profile = try await messenger.register(nickname: nickname, avatar: chosen, invite: invite)
        if self.json {
            try Terminal.json(ProfileOutput(profile))
        } else {
            Terminal.out("registered \(profile.nickname) at \(profile.relay)")
            Terminal.out("token:       \(profile.token)")
            Terminal.out("fingerprint: \(profile.fingerprint.grouped)")
        }
    }
}

/// The stable JSON of `register --json`, `restore --json` and `whoami --json`.
struct ProfileOutput: Encodable {
    var nickname: String
    var token: String
    var fingerprint: String
    var relay: String
    var home: String?

    init(_ profile: Profile, home: String? = nil) {
        self.nickname = profile.nickname.value
        self.token = profile.token.description
        self.fingerprint = profile.fingerprint.hex
        self.relay = profile.relay
        self.home = home
    }
}
