import ArgumentParser
import Foundation
import WotsClient
import WotsCore

struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Create and manage group conversations.",
        discussion: """
            A group has up to 256 members; each message is encrypted once and its key wrapped for every member's \
            pinned key (SECURITY.md, "Groups"). Membership changes are signed updates every member checks; only an \
            admin may add, remove, promote, rename or change the avatar. Send with `wots send --group NAME TEXT` \
            (or --file PATH, once for every member); `wots inbox` shows group messages as "[NAME] sender: text". \
            NAME is a local label: where two groups share one, the name is refused (the error lists their ids) and \
            a prefix of at least 4 hex digits of the id works instead. A member whose published key is not the one \
            the group recorded (it rotated its keys, or someone swapped them) is marked by `wots group show`; \
            compare the safety number (`wots verify NICK`), `wots trust NICK`, then an admin records the new key \
            for every member with `wots group rekey NAME NICK` (a member records its own with `wots group rekey \
            NAME`).
            """,
        subcommands: [
            Create.self, List.self, Show.self, Add.self, Remove.self, Leave.self, Rename.self, Promote.self,
            Rekey.self,
        ]
    )
}

/// Parses an avatar preset's name.
func parseAvatarPreset(_ name: String) throws -> Avatar.Preset {
    guard let preset = Avatar.Preset(rawValue: name.lowercased()) else {
        throw ValidationError(
            "avatar preset \"\(name)\" is not one of \(Avatar.Preset.allCases.map(\.rawValue).joined(separator: ", "))"
        )
    }
    return preset
}

/// The help of every `--avatar-preset` option of `wots group`.
let groupAvatarHelp = ArgumentHelp(
    "The group's avatar, a preset: \(Avatar.Preset.allCases.map(\.rawValue).joined(separator: ", ")).",
    valueName: "NAME"
)

/// Checks a group name as every member's client will: 1–100 UTF-8 bytes, no control characters.
func validateGroupName(_ name: String) throws {
    let size = name.utf8.count
    guard GroupState.nameSizes.contains(size),
        !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
        throw ValidationError("group name is \(size) bytes or has control characters (1–100 bytes)")
    }
}

/// Prints a group as `create`, `add`, `show` and the others do.
func printGroup(_ group: GroupSummary, json: Bool, members: Bool) throws {
    if json { return try Terminal.json(group) }
    Terminal.out(Terminal.describe(group))
    if members { for member in group.members { Terminal.out(Terminal.describe(member, in: group)) } }
}

extension GroupCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a group with you as its admin.",
            discussion: """
                Each member's key is pinned on first use; a changed key is refused until `wots trust NICK`. --json \
                prints {"id", "name", "version", "member", "admin", "members": [{"token", "nickname", \
                "fingerprint", "admin", "joinedAt", "key", "keyRecorded"}], "avatar"}, as every `wots group` command \
                that changes a group. --avatar-preset gives the group a preset picture every member sees.
                """
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions

        @Option(name: .long, help: ArgumentHelp("The other members, comma-separated.", valueName: "NICK,NICK…"))
        var members: String

        @Option(name: .customLong("avatar-preset"), help: groupAvatarHelp)
        var avatarPreset: String?

        @Flag(name: .long, help: "Print the group as JSON.")
        var json = false

        @Argument(help: "The group's name (a label every member sees).")
        var name: String

        func validate() throws {
            try validateGroupName(self.name)
            guard !self.nicknames.isEmpty else { throw ValidationError("--members names no one") }
            for nickname in self.nicknames { _ = try parseNickname(nickname) }
            _ = try self.avatarPreset.map(parseAvatarPreset)
        }

        var nicknames: [String] { self.members.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.createGroup(
                named: self.name,
                members: try self.nicknames.map { try parseNickname($0) },
                avatar: try self.avatarPreset.map(parseAvatarPreset)
            )
            try printGroup(group, json: self.json, members: true)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the groups known here (no network).",
            discussion: #"--json prints a JSON array of groups as `wots group create --json` does ("key" null)."#
        )

        @ParentCommand var root: Wots

        @Flag(name: .long, help: "Print the groups as a JSON array.")
        var json = false

        func run() async throws {
            let groups = try self.root.messenger().groups()
            if self.json { return try Terminal.json(groups) }
            if groups.isEmpty { Terminal.out("no groups") }
            for group in groups { Terminal.out(Terminal.describe(group)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a group's members and whether each one's published key is the one pinned here.",
            discussion: """
                Takes in the group mailbox first. A member whose key changed since it was pinned is shown as KEY \
                CHANGED ("key": "changed" in --json): messages are not wrapped for it until `wots trust NICK`. A \
                member whose published key is not the one the group recorded is marked KEY NOT THE ONE THE GROUP \
                RECORDED ("keyRecorded": false): compare `wots verify NICK`, then an admin runs `wots group rekey \
                NAME NICK`. Also prints the group's disappearing timer ("disappearAfter" in seconds, 0 = off).
                """
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions

        @Flag(name: .long, help: "Print the group as JSON.")
        var json = false

        @Argument(help: "The group's name or a prefix of its id.")
        var name: String

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.showGroup(self.name)
            try printGroup(group, json: self.json, members: true)
            if !self.json {
                let timer = group.disappearAfter ?? 0
                Terminal.out(
                    "disappearing messages: " + (timer == 0 ? "off" : "after " + Terminal.span(.seconds(Int64(timer))))
                )
            }
        }
    }
}
