public import Foundation
public import WotsCore

/// A contact's keys as this machine first saw them (trust on first use, like SSH's `known_hosts`).
public struct Contact: Sendable, Hashable, Codable {
    public var token: Token
    public var nickname: Nickname
    public var publicKeys: PublicKeys
    public var fingerprint: Fingerprint
    /// When the keys were pinned or last accepted with `wots trust`.
    public var pinnedAt: Date

    public init(token: Token, nickname: Nickname, publicKeys: PublicKeys, fingerprint: Fingerprint, pinnedAt: Date) {
        self.token = token
        self.nickname = nickname
        self.publicKeys = publicKeys
        self.fingerprint = fingerprint
        self.pinnedAt = pinnedAt
    }

    public init(entry: DirectoryEntry, pinnedAt: Date = Date()) {
        self.init(
            token: entry.token,
            nickname: entry.nickname,
            publicKeys: entry.publicKeys,
            fingerprint: entry.fingerprint,
            pinnedAt: pinnedAt
        )
    }
}

/// The pinned contacts, stored as `contacts.json`.
///
/// A contact is identified by nickname; its token and keys are pinned the first time it is used. A directory entry
/// whose token or fingerprint differs from the pinned one is a changed key, refused until the user trusts it.
public struct ContactBook: Sendable, Hashable, Codable {
    /// What the book says about a directory entry.
    public enum Verdict: Sendable, Hashable {
        /// Never seen: pin it.
        case unknown
        /// Same token and keys as pinned.
        case pinned(Contact)
        /// The nickname now has other keys (or another token) than the pinned ones.
        case changed(pinned: Contact)
    }

    public private(set) var contacts: [Contact]

    public init(contacts: [Contact] = []) { self.contacts = contacts.sorted { $0.nickname < $1.nickname } }

    public func contact(named nickname: Nickname) -> Contact? { self.contacts.first { $0.nickname == nickname } }

    public func contact(token: Token) -> Contact? { self.contacts.first { $0.token == token } }

    /// Compares a directory entry with what is pinned for its nickname (and for its token).
    public func verdict(for entry: DirectoryEntry) -> Verdict {
        let pinned = self.contact(named: entry.nickname) ?? self.contact(token: entry.token)
        guard let pinned else { return .unknown }
        guard pinned.token == entry.token, pinned.fingerprint == entry.fingerprint,
            pinned.publicKeys == entry.publicKeys
        else { return .changed(pinned: pinned) }
        return .pinned(pinned)
    }

    /// Pins an entry's keys, replacing whatever was pinned for its nickname or token.
    public mutating func pin(_ entry: DirectoryEntry, at date: Date = Date()) {
        self.contacts.removeAll { $0.nickname == entry.nickname || $0.token == entry.token }
        self.contacts.append(Contact(entry: entry, pinnedAt: date))
        self.contacts.sort { $0.nickname < $1.nickname }
    }

    /// Pins the entry when it is new; refuses a changed key.
    /// - Returns: true when the entry was pinned now (first use).
    /// - Throws: `WotsError.keyChanged` naming the old and new fingerprints and `wots trust NICK`.
    public mutating func check(_ entry: DirectoryEntry) throws -> Bool {
        switch self.verdict(for: entry) {
        case .pinned: return false
        case .unknown:
            self.pin(entry)
            return true
        case .changed(let pinned): throw Self.keyChangedError(entry: entry, pinned: pinned)
        }
    }

    static func keyChangedError(entry: DirectoryEntry, pinned: Contact) -> WotsError {
        let what = pinned.token == entry.token ? "key" : "account (token)"
        return WotsError(
            .keyChanged,
            "\(entry.nickname)'s \(what) changed: pinned \(pinned.fingerprint.grouped), now \(entry.fingerprint.grouped); "
                + "check `wots verify \(entry.nickname)` with them, then run `wots trust \(entry.nickname)`"
        )
    }
}

extension LocalStore {
    /// The pinned contacts; empty when none were pinned yet.
    public func contactBook() throws -> ContactBook {
        try self.read(ContactBook.self, from: FileName.contacts) ?? ContactBook()
    }

    public func save(_ book: ContactBook) throws { try self.write(book, to: FileName.contacts) }
}
