import Foundation
import PostgresNIO
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres

/// Acknowledgements lock their recipients' counters last (`wots_acknowledge`, migration 0013), and transactions go to
/// the connection whole (`pipelinedTransaction`), on a real PostgreSQL server.
@Suite("PostgreSQL acknowledgements and pipelined transactions")
struct PostgresAcknowledgementRaceTests {
    @Test func acknowledgementsRacingAppendsFromTwoNodesLeaveEveryCounterRight() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let nodes = [nodeA.mailboxes, nodeB.mailboxes]
            let recipients = (0..<6).map { _ in TestValues.token() }
            let sender = TestValues.token()
            let first = (0..<240).map { TestValues.envelope(from: sender, to: recipients[$0 % recipients.count]) }
            let second = (0..<240).map { TestValues.envelope(from: sender, to: recipients[$0 % recipients.count]) }
            for (index, envelope) in first.enumerated() {
                _ = try await nodes[index % 2].append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 1_000)
            }

            // Each node acknowledges the first messages, a few recipients at a time in an order of its own, while
            // both append the second ones to the same recipients: every lock order the relay can meet at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, envelope) in second.enumerated() {
                    group.addTask {
                        _ = try await nodes[index % 2].append(
                            envelope,
                            receivedAt: TestValues.time(),
                            mailboxCapacity: 1_000
                        )
                    }
                }
                for (index, envelope) in first.enumerated() {
                    group.addTask {
                        let recipient = envelope.header.recipient
                        _ = try await nodes[(index / 3) % 2].acknowledge(
                            [envelope.header.messageKey],
                            for: recipient,
                            at: TestValues.time()
                        )
                    }
                }
                try await group.waitForAll()
            }

            let size = Int64(second[0].serialized.count)
            for recipient in recipients {
                let waiting = try await nodeA.mailboxes.messages(for: recipient, after: 0, limit: 1_000)
                #expect(
                    Set(waiting.map(\.envelope.header.messageKey)).isSubset(of: Set(second.map(\.header.messageKey)))
                )
                #expect(waiting.count == 40)
                #expect(try await nodeB.mailboxes.depth(of: recipient) == 40)
                #expect(try await nodeA.waitingBytes(of: recipient) == 40 * size)
            }
            let again = try await nodeA.mailboxes.acknowledge(
                first.map(\.header.messageKey),
                for: recipients[0],
                at: TestValues.time()
            )
            #expect(again.isEmpty)
        }
    }

    @Test func aStatementThatFailsInAPipelinedTransactionLeavesNothingWrittenAndTheConnectionUsable() async throws {
        try await withTwoNodes { database, _ in
            let node = "pipelined-\(UUID())"
            let error = await #expect(throws: WotsError.self) {
                try await database.pipelinedTransaction(
                    "record a heartbeat and fail",
                    [
                        "INSERT INTO relay_heartbeats (node, at) VALUES (\(node), now())",
                        "SELECT 1 / 0",
                        "INSERT INTO relay_heartbeats (node, at) VALUES (\(node + "-after"), now())",
                    ]
                ) { _ in () }
            }
            #expect(error?.code == .storageUnavailable)
            #expect(try await database.heartbeatCount(like: node) == 0)

            let rows = try await database.pipelinedTransaction(
                "record a heartbeat",
                ["INSERT INTO relay_heartbeats (node, at) VALUES (\(node), now())", "SELECT 41 + 1"]
            ) { rows in try rows[1].map { try $0.decode(Int.self) } }
            #expect(rows == [42])
            #expect(try await database.heartbeatCount(like: node) == 1)
        }
    }
}

extension WotsStoragePostgres.PostgresDatabase {
    /// The waiting bytes the recipient's counter row holds.
    fileprivate func waitingBytes(of recipient: Token) async throws -> Int64 {
        try await self.client.query(
            "SELECT bytes FROM mailbox_counters WHERE recipient = \(Data(recipient.bytes))"
        ).collect().first?.decode(Int64.self) ?? 0
    }

    /// Heartbeat rows whose node starts with `prefix`.
    fileprivate func heartbeatCount(like prefix: String) async throws -> Int {
        try await self.client.query(
            "SELECT count(*) FROM relay_heartbeats WHERE starts_with(node, \(prefix))"
        ).collect().first?.decode(Int.self) ?? 0
    }
}
