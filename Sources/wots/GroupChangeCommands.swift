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
            abstract: "Give a group a new name (admins only).",
            discussion: "--json prints the group as `wots group create --json` does."
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions
        @Flag(name: .long, help: "Print the group as JSON.") var json = false
        @Argument(help: "The group's name or a prefix of its id.") var name: String
        @Argument(help: "The new name.") var newName: String

        func validate() throws { try validateGroupName(self.newName) }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            try printGroup(
                try await messenger.renameGroup(self.name, to: self.newName),
                json: self.json,
                members: false
            )
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
