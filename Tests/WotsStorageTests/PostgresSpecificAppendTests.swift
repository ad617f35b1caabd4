import Foundation
import Testing
import WotsCore
import WotsStorage

@testable import WotsStoragePostgres

/// Group-committed appends (`wots_append_group`, migration 0002) on a real PostgreSQL server.
@Suite("PostgreSQL group appends")
struct PostgresSpecificAppendTests {
    @Test func concurrentAppendsFromTwoNodesToManyRecipientsGetGapFreeSequences() async throws {
        try await withTwoNodes { nodeA, nodeB in
            // One repository per node, as a relay keeps it, so concurrent appends share transactions.
            let repositories = [nodeA.mailboxes, nodeB.mailboxes]
            let recipients = (0..<5).map { _ in TestValues.token() }
            let sender = TestValues.token()
            let total = 300
            let envelopes = (0..<total).map { index in
                TestValues.envelope(from: sender, to: recipients[index % recipients.count])
            }

            let receipts = try await withThrowingTaskGroup(of: (Int, MailboxReceipt).self) { group in
                // Every envelope is sent twice, from both nodes: the second copy must get the first's receipt.
                for index in 0..<(2 * total) {
                    let repository = repositories[index % 2]
                    let envelope = envelopes[index % total]
                    group.addTask {
                        let receipt = try await repository.append(
                            envelope,
                            receivedAt: TestValues.time(1_700_000_000_000 + Int64(index)),
                            mailboxCapacity: 1_000
                        )
                        return (index % total, receipt)
                    }
                }
                return try await group.reduce(into: [Int: [MailboxReceipt]]()) { $0[$1.0, default: []].append($1.1) }
            }

            for copies in receipts.values {
                #expect(copies.count == 2 && copies[0] == copies[1], "one envelope, two receipts: \(copies)")
            }
            for (position, recipient) in recipients.enumerated() {
                let sequences = receipts.filter { $0.key % recipients.count == position }.map(\.value[0].sequence)
                let expected = Array(1...Int64(total / recipients.count))
                #expect(sequences.sorted() == expected)
                let stored = try await nodeA.mailboxes.messages(for: recipient, after: 0, limit: 1_000)
                #expect(stored.map(\.sequence) == expected)
                #expect(try await nodeB.mailboxes.depth(of: recipient) == total / recipients.count)
            }
        }
    }

    @Test func concurrentSingleAppendsAnswerConflictsAndFullMailboxesEachToItsOwnCaller() async throws {
        try await withTwoNodes { nodeA, _ in
            let mailboxes = nodeA.mailboxes
            let sender = TestValues.token()
            let recipient = TestValues.token()
            let taken = TestValues.envelope(from: sender, to: recipient)
            _ = try await mailboxes.append(taken, receivedAt: TestValues.time(), mailboxCapacity: 5)
            let conflicting = TestValues.envelope(from: sender, to: recipient, id: taken.header.messageID)
            let fresh = (0..<10).map { _ in TestValues.envelope(from: sender, to: recipient) }

            async let conflict = outcome {
                try await mailboxes.append(conflicting, receivedAt: TestValues.time(), mailboxCapacity: 5)
            }
            let outcomes = await withTaskGroup(of: Result<MailboxReceipt, WotsError>.self) { group in
                for envelope in fresh {
                    group.addTask {
                        await outcome {
                            try await mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 5)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }

            #expect(await conflict == .failure(WotsError(.messageIDConflict, "")))
            let stored = outcomes.compactMap { try? $0.get().sequence }
            #expect(stored.sorted() == [2, 3, 4, 5])
            #expect(outcomes.filter { $0 == .failure(WotsError(.mailboxFull, "")) }.count == 6)
            #expect(try await mailboxes.depth(of: recipient) == 5)
        }
    }

    @Test func aDatabaseMigratedToVersionOneUpgradesToGroupAppends() async throws {
        try await withTwoNodes(migrated: false) { nodeA, nodeB in
            #expect(try await nodeA.migrate(through: 1) == [1])
            await expectStorageError(.storageUnavailable) {
                _ = try await nodeA.mailboxes.append(
                    TestValues.envelope(from: TestValues.token(), to: TestValues.token()),
                    receivedAt: TestValues.time(),
                    mailboxCapacity: 10
                )
            }

            #expect(try await nodeB.migrate() == Array(2...15))
            #expect(try await nodeA.migrate() == [])
            let recipient = TestValues.token()
            let receipts = try await nodeA.mailboxes.append(
                batch: (0..<3).map { _ in TestValues.envelope(from: TestValues.token(), to: recipient) },
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            #expect(try receipts.map { try $0.get().sequence } == [1, 2, 3])
        }
    }

    @Test func migrationStatementsKeepADollarQuotedFunctionBodyWhole() throws {
        let text = """
            -- a comment; with a semicolon;
            CREATE TABLE t (x integer);

            CREATE FUNCTION f() RETURNS integer
            LANGUAGE plpgsql
            AS $$
            BEGIN
                RETURN 1;
            END;
            $$;
            CREATE INDEX t_x ON t (x);
            """
        let statements = Migration.statements(in: text)
        #expect(statements.count == 3)
        #expect(statements[1].hasPrefix("CREATE FUNCTION") && statements[1].hasSuffix("$$;"))
        #expect(try Migration.bundled().map(\.version) == Array(1...15))
    }
}
