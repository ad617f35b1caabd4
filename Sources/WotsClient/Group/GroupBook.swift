import Foundation
public import WotsCore

/// The groups this account belongs to (or belonged to), stored as `groups.json`: each group's chain of states, this
/// account's next sender sequence in it, and the group events received but not yet shown by `wots inbox`.
///
/// Group names are local labels: two groups may share one; `resolve(_:)` then refuses the name and asks for an id
/// prefix.
public struct GroupBook: Sendable, Hashable, Codable {
    /// The shortest id prefix `resolve(_:)` accepts.
    public static let minimumPrefix = 4

    public private(set) var chains: [GroupChain] = []
    /// This account's next sender sequence per group (hex id), from 1.
    private var sequences: [String: UInt64] = [:]
    /// Received, kept, not yet shown; messages without their text (it stays in the encrypted history).
    public private(set) var unshown: [GroupEvent] = []

    public init() {}

    public func chain(_ id: GroupID) -> GroupChain? { self.chains.first { $0.current.id == id } }

    /// Adds or replaces a group's chain.
    mutating func store(_ chain: GroupChain) {
        self.chains.removeAll { $0.current.id == chain.current.id }
        self.chains.append(chain)
        self.chains.sort { ($0.current.name, $0.current.id) < ($1.current.name, $1.current.id) }
    }

    /// This account's next sender sequence in `group`, not taken: an ephemeral group message (typing) carries it and
    /// receivers never record it.
    func nextSequence(in group: GroupID) -> UInt64 { self.sequences[group.description] ?? 1 }

    /// Takes this account's next sender sequence in `group`.
    mutating func takeSequence(in group: GroupID) -> UInt64 {
        let next = self.sequences[group.description] ?? 1
        self.sequences[group.description] = next + 1
        return next
    }

    mutating func queue(_ event: GroupEvent) {
        var stored = event
        // What a message says stays in the encrypted history, read back from it when shown.
        stored.text = nil
        stored.attachment = nil
        self.unshown.append(stored)
    }

    mutating func clearUnshown() { self.unshown = [] }

    /// Finds a group by its name, or by a prefix of at least 4 hex digits of its id.
    /// - Throws: `not_found` when nothing matches; `invalid_input` when several groups match, naming their ids.
    public func resolve(_ nameOrID: String) throws -> GroupChain {
        let named = self.chains.filter { $0.current.name == nameOrID }
        let lowered = nameOrID.lowercased()
        let prefixed =
            lowered.count >= Self.minimumPrefix
                && Hex.decode(lowered.count.isMultiple(of: 2) ? lowered : lowered + "0")
                    != nil
            ? self.chains.filter { $0.current.id.description.hasPrefix(lowered) } : []
        let matches = named.isEmpty ? prefixed : named
        guard let only = matches.first else {
            throw WotsError(.notFound, "no group named \"\(nameOrID.prefix(100))\" (see `wots group list`)")
        }
        guard matches.count == 1 else {
            throw WotsError(
                .invalidInput,
                "\(matches.count) groups match \"\(nameOrID.prefix(100))\" (ids "
                    + matches.map { String($0.current.id.description.prefix(8)) }.joined(separator: ", ")
                    + "); give a longer id prefix instead of the name"
            )
        }
        return only
    }
}

extension LocalStore.FileName {
    public static let groups = "groups.json"
}

extension LocalStore {
    /// The group book; empty when this account never joined a group.
    public func groupBook() throws -> GroupBook { try self.read(GroupBook.self, from: FileName.groups) ?? GroupBook() }

    public func save(_ book: GroupBook) throws { try self.write(book, to: FileName.groups) }
}
