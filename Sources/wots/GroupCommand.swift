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
            admin may add, remove, promote or rename. Send with `wots send --group NAME TEXT`; `wots inbox` shows \
            group messages as "[NAME] sender: text". NAME is a local label: where two groups share one, the name \
            is refused (the error lists their ids) and a prefix of at least 4 hex digits of the id works instead.
            """,
        subcommands: [Create.self, List.self, Show.self, Add.self, Remove.self, Leave.self, Rename.self, Promote.self]
    )
}

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
    if members { for member in group.members { Terminal.out(Terminal.describe(member)) } }
}

extension GroupCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a group with you as its admin.",
            discussion: """
                Each member's key is pinned on first use; a changed key is refused until `wots trust NICK`. --json \
                prints {"id", "name", "version", "member", "admin", "members": [{"token", "nickname", \
                "fingerprint", "admin", "joinedAt", "key"}]}, as every `wots group` command that changes a group.
                """
        )

        @ParentCommand var root: Wots
        @OptionGroup var secret: SecretOptions

        @Option(name: .long, help: ArgumentHelp("The other members, comma-separated.", valueName: "NICK,NICK…"))
        var members: String

        @Flag(name: .long, help: "Print the group as JSON.")
        var json = false

        @Argument(help: "The group's name (a label every member sees).")
        var name: String

        func validate() throws {
            try validateGroupName(self.name)
            guard !self.nicknames.isEmpty else { throw ValidationError("--members names no one") }
            for nickname in self.nicknames { _ = try parseNickname(nickname) }
        }

        var nicknames: [String] { self.members.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

        func run() async throws {
            let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
            let group = try await messenger.createGroup(
                named: self.name,
                members: try self.nicknames.map { try parseNickname($0) }
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
                CHANGED ("key": "changed" in --json): messages are not wrapped for it until `wots trust NICK`.
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
            try printGroup(try await messenger.showGroup(self.name), json: self.json, members: true)
        }
    }
}
