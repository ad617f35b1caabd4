public import Foundation
import GRDB
public import WotsCore
public import WotsCrypto

/// The conversation history on this machine: `history.sqlite` in the account's folder (mode 0600), every message's
/// content encrypted under a random history key that is stored only sealed under the secret-derived keys.
///
/// Opening it needs the unlocked account's `SecretKeys`; searching decrypts rows in memory (nothing is indexed in
/// the clear). Disappearing messages are deleted by `deleteExpired(now:)`.
public final class ConversationHistory: Sendable {
    /// The file name inside the account folder.
    public static let fileName = "history.sqlite"

    let queue: DatabaseQueue
    let key: HistoryKey

    /// Opens (creating if needed) the history of `account` in `folder`.
    /// - Throws: `WotsError.wrongSecret` when `keys` do not open the stored history key, `.localStore` when the file
    ///   cannot be opened.
    public init(folder: URL, account: Token, keys: SecretKeys) throws {
        let path = folder.appendingPathComponent(Self.fileName).path
        // SQLite gives its journal files the database file's mode, so creating it owner-only covers them too.
        if !FileManager.default.fileExists(atPath: path),
            !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw WotsError(.localStore, "cannot create \(path)")
        }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            self.queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(self.queue)
            self.key = try self.queue.write { db in
                try Self.historyKey(db, account: account, keys: keys)
            }
        } catch let error as WotsError {
            throw error
        } catch {
            throw WotsError(.localStore, "cannot open \(path): \(error)")
        }
    }

    private static func historyKey(_ db: Database, account: Token, keys: SecretKeys) throws -> HistoryKey {
        let accountBytes = Data(account.bytes)
        if let sealed = try Data.fetchOne(
            db,
            sql: "SELECT sealed FROM history_key WHERE account = ?",
            arguments: [accountBytes]
        ) {
            return try HistoryKey.open(Array(sealed), with: keys, account: account)
        }
        let key = HistoryKey.generate()
        try db.execute(
            sql: "INSERT INTO history_key (account, sealed) VALUES (?, ?)",
            arguments: [accountBytes, Data(try key.sealed(with: keys, account: account))]
        )
        return key
    }

    // MARK: Messages

    /// Records a message; a message already recorded (same sender and id) is left as it is.
    /// - Returns: whether it was new.
    @discardableResult
    public func record(_ entry: HistoryEntry) throws -> Bool {
        let sealed = try self.key.seal(entry.content, context: entry.sealingContext)
        return try self.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO messages (sender, id, peer, sent_at, expires_at, status, content)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(entry.sender.bytes), entry.id.rawBytes, Data(entry.peer.bytes),
                    entry.sentAt.wholeMilliseconds, entry.expiresAt?.wholeMilliseconds, entry.status.rawValue,
                    Data(sealed),
                ]
            )
            return db.changesCount > 0
        }
    }

    /// Moves sent messages forward to `status` (never back: a late `delivered` does not undo `read`).
    /// - Parameter peer: who confirmed them; only messages of the conversation with `peer` move (a receipt from
    ///   someone else names messages that were never sent to it). Nil moves any.
    /// - Returns: the keys whose status changed.
    @discardableResult
    public func advance(_ keys: [MessageKey], to status: HistoryEntry.Status, from peer: Token? = nil) throws
        -> [MessageKey]
    {
        try self.write { db in
            var changed: [MessageKey] = []
            for key in keys {
                guard
                    let current = try String.fetchOne(
                        db,
                        sql: "SELECT status FROM messages WHERE sender = ? AND id = ? AND (?3 IS NULL OR peer = ?3)",
                        arguments: [Data(key.sender.bytes), key.id.rawBytes, peer.map { Data($0.bytes) }]
                    ).flatMap(HistoryEntry.Status.init(rawValue:)),
                    current != .received, current < status
                else { continue }
                try db.execute(
                    sql: "UPDATE messages SET status = ? WHERE sender = ? AND id = ?",
                    arguments: [status.rawValue, Data(key.sender.bytes), key.id.rawBytes]
                )
                changed.append(key)
            }
            return changed
        }
    }

    /// Deletes one message (a send the relay refused).
    public func forget(_ key: MessageKey) throws {
        try self.write { db in
            try db.execute(
                sql: "DELETE FROM messages WHERE sender = ? AND id = ?",
                arguments: [Data(key.sender.bytes), key.id.rawBytes]
            )
            try Self.deleteOrphanedMemberStatuses(db)
        }
    }

    /// The message with this key, if it is kept.
    public func entry(_ key: MessageKey) throws -> HistoryEntry? {
        try self.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT * FROM messages WHERE sender = ? AND id = ?",
                arguments: [Data(key.sender.bytes), key.id.rawBytes]
            )
        }.map(self.entry(from:))
    }

    /// The conversation with `peer`, oldest first, decrypted.
    public func entries(with peer: Token) throws -> [HistoryEntry] {
        try self.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM messages WHERE peer = ? ORDER BY sent_at, rowid",
                arguments: [Data(peer.bytes)]
            )
        }.map(self.entry(from:))
    }

    /// Deletes every message whose `expiresAt` is at or before `now`.
    /// - Returns: the deleted messages' keys.
    @discardableResult
    public func deleteExpired(now: Date) throws -> [HistoryEntry] {
        try self.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM messages WHERE expires_at IS NOT NULL AND expires_at <= ?",
                arguments: [now.wholeMilliseconds]
            )
            try db.execute(
                sql: "DELETE FROM messages WHERE expires_at IS NOT NULL AND expires_at <= ?",
                arguments: [now.wholeMilliseconds]
            )
            if !rows.isEmpty { try Self.deleteOrphanedMemberStatuses(db) }
            return rows
        }.map(self.entry(from:))
    }

    /// The earliest `expiresAt` still kept, for a timer that wakes when the next message disappears.
    public func nextExpiry() throws -> Date? {
        try self.read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(expires_at) FROM messages WHERE expires_at IS NOT NULL")
        }.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    // MARK: Conversation settings

    /// The disappearing-message timer of the conversation with `peer`; 0 when off.
    public func disappearAfter(with peer: Token) throws -> Int {
        try self.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT disappear_after FROM conversations WHERE peer = ?",
                arguments: [Data(peer.bytes)]
            )
        } ?? 0
    }

    /// Sets the conversation's timer (seconds; 0 turns it off) unless a later change is already kept.
    ///
    /// Changes are ordered by the `sentAt` of the message that made them, then by the setter's token bytes, so both
    /// sides keep the same timer whatever order their messages cross in.
    /// - Parameters:
    ///   - setAt: the `sentAt` of the `settings` message (or of a message carrying the timer its sender had).
    ///   - setBy: who sent that message.
    /// - Returns: whether the change was newer and is now the conversation's timer.
    @discardableResult
    public func setDisappearAfter(_ seconds: Int, with peer: Token, setAt: Date, setBy: Token) throws -> Bool {
        try self.write { db in
            try db.execute(
                sql: """
                    INSERT INTO conversations (peer, disappear_after, timer_set_at, timer_set_by) VALUES (?, ?, ?, ?)
                    ON CONFLICT (peer) DO UPDATE SET disappear_after = excluded.disappear_after,
                        timer_set_at = excluded.timer_set_at, timer_set_by = excluded.timer_set_by
                    WHERE (excluded.timer_set_at, excluded.timer_set_by)
                        > (conversations.timer_set_at, conversations.timer_set_by)
                    """,
                arguments: [Data(peer.bytes), seconds, setAt.wholeMilliseconds, Data(setBy.bytes)]
            )
            return db.changesCount > 0
        }
    }

    /// The avatar the peer sent in its latest `profile` message (a preset, or where its image was saved), if it did.
    public func avatar(of peer: Token) throws -> PeerAvatar? {
        try self.read { db in
            try String.fetchOne(
                db,
                sql: "SELECT avatar FROM conversations WHERE peer = ?",
                arguments: [Data(peer.bytes)]
            )
        }.flatMap(PeerAvatar.init(stored:))
    }

    /// Keeps the avatar the peer sent (a preset's name, or `image:` and the saved file's path).
    public func setAvatar(_ avatar: PeerAvatar, of peer: Token) throws {
        try self.write { db in
            try db.execute(
                sql: """
                    INSERT INTO conversations (peer, avatar) VALUES (?, ?)
                    ON CONFLICT (peer) DO UPDATE SET avatar = excluded.avatar
                    """,
                arguments: [Data(peer.bytes), avatar.stored]
            )
        }
    }

    // MARK: Plumbing

    func entry(from row: Row) throws -> HistoryEntry {
        guard let peer = try? Token(bytes: Array(row["peer"] as Data)),
            let sender = try? Token(bytes: Array(row["sender"] as Data)),
            let id = UUID(rawBytes: row["id"]),
            let status = HistoryEntry.Status(rawValue: row["status"])
        else {
            throw WotsError(.localStore, "a row of \(Self.fileName) is damaged")
        }
        let expiresAt: Int64? = row["expires_at"]
        var entry = HistoryEntry(
            peer: peer,
            sender: sender,
            id: id,
            sentAt: Date(timeIntervalSince1970: Double(row["sent_at"] as Int64) / 1000),
            expiresAt: expiresAt.map { Date(timeIntervalSince1970: Double($0) / 1000) },
            status: status,
            content: []
        )
        entry.content = try self.key.open(Array(row["content"] as Data), context: entry.sealingContext)
        return entry
    }

    func read<Value>(_ body: (Database) throws -> Value) throws -> Value {
        do {
            return try self.queue.read(body)
        } catch let error as WotsError {
            throw error
        } catch {
            throw WotsError(.localStore, "cannot read \(Self.fileName): \(error)")
        }
    }

    func write<Value>(_ body: (Database) throws -> Value) throws -> Value {
        do {
            return try self.queue.write(body)
        } catch let error as WotsError {
            throw error
        } catch {
            throw WotsError(.localStore, "cannot write \(Self.fileName): \(error)")
        }
    }
}

extension UUID {
    /// The 16 raw bytes, as the history stores ids.
    var rawBytes: Data { withUnsafeBytes(of: self.uuid) { Data($0) } }

    init?(rawBytes: Data?) {
        guard let rawBytes, rawBytes.count == 16 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: rawBytes) }
        self.init(uuid: uuid)
    }
}

extension Date {
    /// Milliseconds since 1970, as the history stores times; nearest, so a date made from an envelope's
    /// milliseconds gives them back exactly.
    var wholeMilliseconds: Int64 { Int64((self.timeIntervalSince1970 * 1000).rounded()) }
}
