import ArgumentParser
import Foundation
import WotsClient
import WotsCore
import WotsCrypto

struct DirectoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "directory",
        abstract: "Browse the public directory.",
        subcommands: [List.self, Show.self, VerifyLog.self]
    )
}

extension DirectoryCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every registered account, following the relay's pages to the end.",
            discussion: """
                Human output: one line per account, nickname then fingerprint. --json prints one JSON array of \
                directory entries as the relay publishes them: {"token", "nickname", "publicKeys": {"signing", \
                "encryption"}, "fingerprint", "registeredAt"}.
                """
        )

        @ParentCommand var root: Wots

        @Option(name: .long, help: "Entries fetched per request, 1–100.")
        var limit: Int = PageLimit.maximum

        @Flag(name: .long, help: "Print the entries as a JSON array.")
        var json = false

        func validate() throws {
            guard PageLimit.allowed.contains(self.limit) else {
                throw ValidationError("--limit \(self.limit) is out of range (1–\(PageLimit.maximum) per page)")
            }
        }

        func run() async throws {
            let messenger = try self.root.messenger()
            let entries = try await messenger.directory(pageSize: self.limit) { count in
                Terminal.progress("fetched \(count) entries…")
            }
            Terminal.endProgress()
            if self.json {
                try Terminal.json(entries)
            } else {
                let width = max(8, entries.map(\.nickname.value.count).max() ?? 0)
                for entry in entries {
                    let name = entry.nickname.value.padding(toLength: width, withPad: " ", startingAt: 0)
                    Terminal.out("\(name)  \(entry.fingerprint.grouped)")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one account with its fingerprint.",
            discussion: """
                --json prints the directory entry with a "pinned" field: "no", "yes" or "changed", and an "avatar" \
                field: the avatar their `profile` message told this machine, {"preset": NAME} or {"image": PATH} \
                (saved under WOTS_HOME/avatars), or null when none arrived yet ("avatar: not received yet").
                """
        )

        @ParentCommand var root: Wots

        @Argument(help: "The nickname.")
        var nick: String

        @Flag(name: .long, help: "Print the entry as JSON.")
        var json = false

        func validate() throws { _ = try parseNickname(self.nick) }

        func run() async throws {
            let messenger = try self.root.messenger()
            let (entry, verdict) = try await messenger.show(try parseNickname(self.nick))
            let avatar = try messenger.store.peerAvatar(of: entry.token)
            let pinned: String
            switch verdict {
            case .unknown: pinned = "no"
            case .pinned: pinned = "yes"
            case .changed: pinned = "changed"
            }
            if self.json {
                try Terminal.json(ShowOutput(entry: entry, pinned: pinned, avatar: avatar))
                return
            }
            Terminal.out("nickname:    \(entry.nickname)")
            Terminal.out("token:       \(entry.token)")
            Terminal.out("fingerprint: \(entry.fingerprint.grouped)")
            Terminal.out("registered:  \(Terminal.time(entry.registeredAt))")
            Terminal.out("avatar:      \(Terminal.describe(avatar))")
            switch verdict {
            case .unknown: Terminal.out("pinned:      no (pinned on first send or verify)")
            case .pinned: Terminal.out("pinned:      yes")
            case .changed(let contact):
                Terminal.out(
                    "pinned:      KEY CHANGED (pinned \(contact.fingerprint.grouped)); see `wots verify \(entry.nickname)`"
                )
            }
        }
    }

    struct ShowOutput: Encodable {
        var entry: DirectoryEntry
        var pinned: String
        var avatar: PeerAvatar?

        func encode(to encoder: any Encoder) throws {
            try self.entry.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.pinned, forKey: .pinned)
            try container.encode(self.avatar, forKey: .avatar)
        }

        enum CodingKeys: String, CodingKey { case pinned, avatar }
    }
}
