import Foundation
import GRDB
import WotsCore
import WotsStorage

extension MailboxPipeline {
    /// How one batch is written, inside one transaction.
    struct BatchWriter {
        let db: Database
        /// Numbers skipped at a recipient's first database-numbered write in this process, when an earlier process
        /// left numbers it may have handed out unwritten.
        let reservedNumbers: Int64
        /// Whether this process has yet to record that it numbers messages before writing them.
        let marksNumberingOpen: Bool
        var results: BatchResults
        /// Early appends' changes to their counters, applied before anything reads a counter and at the end.
        private var deltas: [Token: CounterDelta] = [:]
        private var reserved = Set<Token>()

        private struct CounterDelta {
            var next: Int64 = 0
            var depth = 0
            var bytes = 0
        }

        /// - Parameter earlierProcessLeftNumbers: what an earlier transaction of this process found; nil in the
        ///   first, which looks.
        init(db: Database, reservedNumbers: Int64, earlierProcessLeftNumbers: Bool?, marksNumberingOpen: Bool) {
            self.db = db
            self.reservedNumbers = reservedNumbers
            self.marksNumberingOpen = marksNumberingOpen
            self.results = BatchResults(earlierProcessLeftNumbers: earlierProcessLeftNumbers ?? false)
            if earlierProcessLeftNumbers == nil { self.lookForNumbering = true }
        }

        private var lookForNumbering = false

        mutating func write(_ batch: [(ItemID, Taken)]) throws -> BatchResults {
            if self.lookForNumbering {
                self.results.earlierProcessLeftNumbers =
                    try Bool.fetchOne(
                        self.db,
                        sql: "SELECT EXISTS (SELECT 1 FROM mailbox_numbering)"
                    ) ?? false
            }
            if self.marksNumberingOpen {
                try self.db.execute(
                    sql: "INSERT OR REPLACE INTO mailbox_numbering (singleton, opened_at_ms) VALUES (1, ?)",
                    arguments: [Date().millisecondsSince1970]
                )
            }
            for (id, item) in batch {
                switch item {
                case .early(let message, let acknowledgedAt):
                    try self.writeEarly(message, acknowledgedAt: acknowledgedAt)
                case .late(let request, let raiseTo, let reserve):
                    try self.flushDeltas()
                    let recipient = request.envelope.header.recipient
                    try self.prepareCounter(of: recipient, raiseTo: raiseTo, reserve: reserve)
                    let result = try request.store(in: self.db)
                    self.results.late[id] = BatchResults.Late(result: result, counter: try self.counter(of: recipient))
                case .acknowledgement(let keys, let recipient, let now):
                    let deleted = try MailboxWrite.acknowledge(keys, for: recipient, at: now, in: self.db)
                    self.results.acknowledged[id] = BatchResults.Deleted(keys: Set(deleted.keys), bytes: deleted.bytes)
                case .exclusive(let exclusive, let raises, let reserves):
                    try self.flushDeltas()
                    for recipient in exclusive.recipients {
                        try self.prepareCounter(
                            of: recipient,
                            raiseTo: raises[recipient],
                            reserve: reserves.contains(recipient)
                        )
                    }
                    self.results.exclusive[id] = try exclusive.perform(self.db)
                }
            }
            try self.flushDeltas()
            return self.results
        }

        /// Writes an append numbered before its commit: waiting, or, acknowledged since, only remembered as
        /// acknowledged. Either way its number is used.
        private mutating func writeEarly(_ message: MailboxMessage, acknowledgedAt: Date?) throws {
            let header = message.envelope.header
            let recipient = header.recipient.databaseBytes
            let receivedAt = message.receivedAt.millisecondsSince1970
            var delta = self.deltas[header.recipient] ?? CounterDelta()
            if let acknowledgedAt {
                try self.db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO acknowledged_messages
                            (sender, message_id, recipient, sequence, received_at_ms, tag, acknowledged_at_ms)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(
                    arguments: [
                        header.sender.databaseBytes, header.messageID.databaseBytes, recipient, message.sequence,
                        receivedAt, Data(message.envelope.acknowledgementTag), acknowledgedAt.millisecondsSince1970,
                    ]
                )
            } else {
                try AppendRequest.insert(message, in: self.db)
                delta.depth += 1
                delta.bytes += message.envelope.serializedSize
            }
            delta.next = max(delta.next, message.sequence + 1)
            self.deltas[header.recipient] = delta
        }

        private mutating func flushDeltas() throws {
            guard !self.deltas.isEmpty else { return }
            let counters = try self.db.cachedStatement(
                sql: """
                    INSERT INTO mailbox_counters (recipient, next_sequence, depth) VALUES (?, ?, ?)
                    ON CONFLICT (recipient) DO UPDATE SET
                        next_sequence = max(next_sequence, excluded.next_sequence), depth = depth + excluded.depth
                    """
            )
            let sizes = try self.db.cachedStatement(
                sql: """
                    INSERT INTO mailbox_sizes (recipient, bytes) VALUES (?, ?)
                    ON CONFLICT (recipient) DO UPDATE SET bytes = bytes + excluded.bytes
                    """
            )
            for (recipient, delta) in self.deltas {
                try counters.execute(arguments: [recipient.databaseBytes, delta.next, delta.depth])
                if delta.bytes != 0 { try sizes.execute(arguments: [recipient.databaseBytes, delta.bytes]) }
            }
            self.deltas.removeAll(keepingCapacity: true)
        }

        /// Before the database numbers mail for a recipient: lifts its row above every number handed out.
        private mutating func prepareCounter(of recipient: Token, raiseTo: Int64?, reserve: Bool) throws {
            let bytes = recipient.databaseBytes
            if reserve, self.results.earlierProcessLeftNumbers, self.reserved.insert(recipient).inserted {
                try self.db.cachedStatement(
                    sql: "UPDATE mailbox_counters SET next_sequence = next_sequence + ? WHERE recipient = ?"
                ).execute(arguments: [self.reservedNumbers, bytes])
            }
            if let raiseTo {
                try self.db.cachedStatement(
                    sql: "UPDATE mailbox_counters SET next_sequence = max(next_sequence, ?) WHERE recipient = ?"
                ).execute(arguments: [raiseTo, bytes])
            }
        }

        private func counter(of recipient: Token) throws -> CounterRow {
            let row = try Row.fetchOne(
                self.db.cachedStatement(
                    sql: """
                        SELECT next_sequence, depth,
                            COALESCE((SELECT bytes FROM mailbox_sizes AS s WHERE s.recipient = c.recipient), 0) AS bytes
                        FROM mailbox_counters AS c WHERE recipient = ?
                        """
                ),
                arguments: [recipient.databaseBytes]
            )
            return CounterRow(next: row?["next_sequence"] ?? 1, depth: row?["depth"] ?? 0, bytes: row?["bytes"] ?? 0)
        }
    }
}
