import Foundation
import Testing
import WotsCore
import WotsStorage
import WotsStoragePostgres

/// What only the PostgreSQL backend promises: several relay processes ("nodes") sharing one database.
@Suite("PostgreSQL nodes sharing one database")
struct PostgresSpecificTests {
    @Test func mailAppendedOnOneNodeReachesAnotherNodesEventBusByNotify() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let bus = EventBus()
            let notifications = PostgresMailNotifications(
                database: nodeB,
                eventBus: bus,
                logger: PostgresTestBackend.logger
            )
            let listening = Task { try? await notifications.run() }
            defer { listening.cancel() }
            try await waitUntil("node B listens") { notifications.isListening }
            let arrivals = bus.subscribe(to: MailArrived.self)
            let recipient = TestValues.token()

            // B's own append is not republished: B's relay publishes its own mail locally.
            _ = try await nodeB.mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: recipient),
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )
            let receipt = try await nodeA.mailboxes.append(
                TestValues.envelope(from: TestValues.token(), to: recipient),
                receivedAt: TestValues.time(),
                mailboxCapacity: 10
            )

            let arrived = try await firstElement(of: arrivals, within: .seconds(30))
            #expect(arrived == MailArrived(recipient: recipient, sequence: receipt.sequence))
            #expect(receipt.sequence == 2)
        }
    }

    @Test func migratingTwiceOrFromTwoNodesAtOnceIsHarmless() async throws {
        try await withTwoNodes(migrated: false) { nodeA, nodeB in
            async let fromA = nodeA.migrate()
            async let fromB = nodeB.migrate()
            let applied = try await [fromA, fromB]

            #expect(applied.filter(\.isEmpty).count == 1, "exactly one node applies the migrations: \(applied)")
            #expect(applied.joined().first == 1)
            #expect(try await nodeA.migrate() == [])
            #expect(try await nodeB.migrate() == [])
            #expect(try await nodeB.directory.count() == 0)
        }
    }

    @Test func concurrentAppendsFromTwoNodesGetDistinctGapFreeSequencesThatCommitInOrder() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let recipient = TestValues.token()
            let total = 60

            // A reader racing the appends must only ever see 1...n: never a gap that a lower sequence fills later.
            let reader = Task {
                var violations: [[Int64]] = []
                var seen = 0
                while seen < total, !Task.isCancelled {
                    let sequences = try await nodeA.mailboxes.messages(for: recipient, after: 0, limit: 1_000)
                        .map(\.sequence)
                    if sequences != (0..<sequences.count).map({ Int64($0 + 1) }) {
                        violations.append(sequences)
                    }
                    seen = sequences.count
                }
                return violations
            }

            let sequences = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<total {
                    let node = index.isMultiple(of: 2) ? nodeA : nodeB
                    group.addTask {
                        try await node.mailboxes.append(
                            TestValues.envelope(from: TestValues.token(), to: recipient),
                            receivedAt: TestValues.time(),
                            mailboxCapacity: 1_000
                        ).sequence
                    }
                }
                var sequences: [Int64] = []
                for try await sequence in group { sequences.append(sequence) }
                return sequences
            }

            #expect(sequences.sorted() == Array(1...Int64(total)))
            let violations = try await reader.value
            #expect(violations.isEmpty, "a reader saw gaps: \(violations.prefix(3))")
            let stored = try await nodeB.mailboxes.messages(for: recipient, after: 0, limit: 1_000)
            #expect(stored.map(\.sequence) == Array(1...Int64(total)))
            #expect(try await nodeA.mailboxes.depth(of: recipient) == total)
        }
    }

    @Test func oneMessageIDRacingToTwoRecipientsIsAcceptedOnceAndRefusedOnce() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let sender = TestValues.token()
            let id = UUID()
            let first = TestValues.envelope(from: sender, to: TestValues.token(), id: id)
            let second = TestValues.envelope(from: sender, to: TestValues.token(), id: id)

            async let fromA = outcome {
                try await nodeA.mailboxes.append(first, receivedAt: TestValues.time(), mailboxCapacity: 10)
            }
            async let fromB = outcome {
                try await nodeB.mailboxes.append(second, receivedAt: TestValues.time(), mailboxCapacity: 10)
            }
            let outcomes = await [fromA, fromB]

            #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
            #expect(outcomes.contains { $0 == .failure(WotsError(.messageIDConflict, "")) })
        }
    }

    @Test func theSameEnvelopeFromTwoNodesAtOnceIsStoredOnceWithOneReceipt() async throws {
        try await withTwoNodes { nodeA, nodeB in
            let recipient = TestValues.token()
            let envelope = TestValues.envelope(from: TestValues.token(), to: recipient)

            async let fromA = nodeA.mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 10)
            async let fromB = nodeB.mailboxes.append(
                envelope,
                receivedAt: TestValues.time(1_700_000_009_000),
                mailboxCapacity: 10
            )
            let receipts = try await [fromA, fromB]

            #expect(receipts[0] == receipts[1])
            #expect(try await nodeA.mailboxes.depth(of: recipient) == 1)
        }
    }

    @Test func readinessAnswersForALiveDatabaseAndFailsAsUnavailableForADeadOne() async throws {
        try await withTwoNodes { nodeA, _ in
            try await nodeA.ping()
        }
        var dead = try PostgresTestBackend.serverConfiguration()
        dead.port = 1
        dead.operationTimeout = .seconds(2)
        let (database, running) = PostgresTestBackend.start(dead)
        defer { running.cancel() }
        await expectStorageError(.storageUnavailable) {
            try await database.ping()
        }
    }

    @Test func databaseURLsAreParsedAndTheirPasswordsKeptOutOfDescriptions() throws {
        let plain = try PostgresDatabase.Configuration(url: "postgres://wots:s3cret@db.example:6543/relay")
        #expect(plain.host == "db.example")
        #expect(plain.port == 6543)
        #expect(plain.username == "wots")
        #expect(plain.password == "s3cret")
        #expect(plain.database == "relay")
        #expect(plain.requiresTLS == false)
        #expect(!plain.description.contains("s3cret"))

        let tls = try PostgresDatabase.Configuration(url: "postgresql://wots@db.example/relay?sslmode=require")
        #expect(tls.port == 5432)
        #expect(tls.password == nil)
        #expect(tls.requiresTLS)

        for bad in [
            "sqlite:wots.db", "postgres://db.example/relay", "postgres://wots@db.example", "postgres://wots@/x",
        ] {
            let error = #expect(throws: WotsError.self) { try PostgresDatabase.Configuration(url: bad) }
            #expect(error?.code == .invalidArgument)
        }
    }
}

/// Two database handles ("relay nodes") on one fresh database, migrated unless told otherwise; all removed afterwards.
func withTwoNodes(
    migrated: Bool = true,
    _ body: (PostgresDatabase, PostgresDatabase) async throws -> Void
) async throws {
    let testDatabase = try await PostgresTestBackend.createDatabase()
    let (nodeA, runningA) = PostgresTestBackend.start(testDatabase.configuration)
    let (nodeB, runningB) = PostgresTestBackend.start(testDatabase.configuration)
    func stop() async {
        runningA.cancel()
        runningB.cancel()
        await runningA.value
        await runningB.value
    }
    do {
        if migrated { try await nodeA.migrate() }
        try await body(nodeA, nodeB)
    } catch {
        await stop()
        try? await testDatabase.drop()
        throw error
    }
    await stop()
    try await testDatabase.drop()
}

func outcome(_ body: () async throws -> MailboxReceipt) async -> Result<MailboxReceipt, WotsError> {
    do {
        return .success(try await body())
    } catch let error as WotsError {
        return .failure(error)
    } catch {
        return .failure(WotsError(.storageUnavailable, "unexpected \(error)"))
    }
}

private struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(self.what)" }
}

/// Polls `condition` every 10 ms for up to 30 seconds: it bounds an event that never comes, not how quickly it comes
/// (beside the whole parallel suite on two cores, `LISTEN` took over 5 s once in CI).
private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)
    while !condition() {
        guard clock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// The first event of a subscription, or `TimedOut` after `timeout`.
private func firstElement<Event: Sendable>(
    of subscription: EventSubscription<Event>,
    within timeout: Duration
) async throws -> Event {
    try await withThrowingTaskGroup(of: Event?.self) { group in
        group.addTask {
            var iterator = subscription.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let event = first else {
            throw TimedOut(what: "an event within \(timeout)")
        }
        return event
    }
}
