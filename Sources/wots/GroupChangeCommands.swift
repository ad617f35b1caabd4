import ArgumentParser
import Foundation
import WotsClient
import WotsCore

extension GroupCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add members (admins only); they read only what is sent after.",
            discussion: "--json prints the group as `wots group create --json` does."
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The nicknames to add.") var nicknames: [String]

        func validate() throws { for nickname in self.nicknames { _ = try parseNickname(nickname) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.addToGroup(
                self.name,
                members: try self.nicknames.map { try parseNickname($0) }
            )
            try printGroup(group, json: self.json, members: true)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove members (admins only); they get no later message.",
            discussion: "--json prints the group as `wots group create --json` does."
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The nicknames to remove.") var nicknames: [String]

        func validate() throws { for nickname in self.nicknames { _ = try parseNickname(nickname) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.removeFromGroup(
                self.name,
                members: try self.nicknames.map { try parseNickname($0) }
            )
            try printGroup(group, json: self.json, members: true)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave a group; when no admin is left, the longest-standing member becomes one.",
            discussion: "--json prints the group as `wots group create --json` does (\"member\": false)."
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String

        func run() async throws {
            let group = try await self.root.messenger(secretFile: self.secret.secretFile).leaveGroup(self.name)
            if self.json { return try Terminal.json(group) }
            Terminal.out("you left \(Terminal.safe(group.name))")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a group a new name, a new avatar, or both (admins only).",
            discussion: """
                --avatar-preset NAME sets the group's preset picture, --no-avatar removes it; give the new name, an \
                avatar option, or both. --json prints the group as `wots group create --json` does.
                """
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Option(name: .customLong("avatar-preset"), help: groupAvatarHelp) var avatarPreset: String?
        @Flag(name: .customLong("no-avatar"), help: "Remove the group's avatar.") var noAvatar = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The new name.") var newName: String?

        func validate() throws {
            if let newName { try validateGroupName(newName) }
            _ = try self.avatarPreset.map(parseAvatarPreset)
            guard !(self.avatarPreset != nil && self.noAvatar) else {
                throw ValidationError("give --avatar-preset or --no-avatar, not both")
            }
            guard self.newName != nil || self.avatarPreset != nil || self.noAvatar else {
                throw ValidationError("give a new name, --avatar-preset NAME or --no-avatar")
            }
        }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let avatar: Avatar.Preset?? =
                self.noAvatar ? .some(nil) : try self.avatarPreset.map { .some(try parseAvatarPreset($0)) }
            try printGroup(
                try await messenger.renameGroup(self.name, to: self.newName, avatar: avatar),
                json: self.json,
                members: false
            )
        }
    }

    struct Rekey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record members' current keys in the group (admins; any member for its own key).",
            discussion: """
                After a member rotated its keys, every other member sees that its key is not the one the group \
                recorded. Once you compared the safety number (`wots verify NICK`) and accepted the key (`wots trust \
                NICK`), `wots group rekey NAME NICK` records it for every member (admins only); with no NICK it \
                records your own current key (after `wots rotate`). A key you have not accepted is refused \
                (key_changed). --json prints the group as `wots group create --json` does.
                """
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The members whose current keys to record; none: your own.") var nicknames: [String] = []

        func validate() throws { for nickname in self.nicknames { _ = try parseNickname(nickname) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.rekeyGroup(
                self.name,
                members: try self.nicknames.map { try parseNickname($0) }
            )
            try printGroup(group, json: self.json, members: true)
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make members admins (admins only).",
            discussion: "--json prints the group as `wots group create --json` does."
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The nicknames to make admins.") var nicknames: [String]

        func validate() throws { for nickname in self.nicknames { _ = try parseNickname(nickname) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.promoteInGroup(
                self.name,
                members: try self.nicknames.map { try parseNickname($0) }
            )
            try printGroup(group, json: self.json, members: true)
        }
    }
}
