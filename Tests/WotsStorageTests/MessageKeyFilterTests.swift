import Foundation
import Testing
import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

/// A new (sender, id) is not looked for in the database once the key filter holds every key written; a key written
/// before, in this process or an earlier one, is still looked for, so a retry gets its first receipt.
@Suite struct MessageKeyFilterTests {
    private static func randomKey() -> MessageKey { MessageKey(sender: TestValues.token(), id: UUID()) }

    @Test func everyInsertedKeyIsFoundAndFewOthersAre() {
        var filter = KeyPresenceFilter(capacity: 20_000)
        let inserted = (0..<20_000).map { _ in KeyPresenceFilter.hash(Self.randomKey()) }
        for hash in inserted { filter.insert(hash) }
        #expect(inserted.allSatisfy { filter.mayContain($0) })
        #expect(!filter.isOverfull)
        let falsePositives = (0..<50_000).count { _ in filter.mayContain(KeyPresenceFilter.hash(Self.randomKey())) }
        // Sized for about 1 % at its capacity.
        #expect(falsePositives < 1_500, "\(falsePositives) of 50,000 keys never inserted were reported as present")
        filter.insert(KeyPresenceFilter.hash(Self.randomKey()))
        #expect(filter.isOverfull)
    }

    @Test func aKeyHashesTheSameFromItsEnvelopeAndFromItsStoredColumns() {
        let key = Self.randomKey()
        let stored = Data(key.sender.bytes).withUnsafeBytes { sender in
            key.id.databaseBytes.withUnsafeBytes { id in KeyPresenceFilter.hash(sender: sender, id: id) }
        }
        #expect(stored == KeyPresenceFilter.hash(key))
    }

    @Test func withoutAFilterEveryKeyIsLookedFor() {
        var keys = MailboxPipeline.KeyFilterState()
        #expect(keys.mayBeWritten(KeyPresenceFilter.hash(Self.randomKey())))
        let startsScan = keys.startsScan(at: .now)
        #expect(startsScan)
        let unknown = KeyPresenceFilter.hash(Self.randomKey())
        #expect(keys.mayBeWritten(unknown), "a scan that has not ended decides nothing")
    }

    @Test func aKeyTakenWhileTheScanRunsIsInTheFilterItGives() {
        var keys = MailboxPipeline.KeyFilterState()
        let written = KeyPresenceFilter.hash(Self.randomKey())
        let takenMeanwhile = KeyPresenceFilter.hash(Self.randomKey())
        let startsScan = keys.startsScan(at: .now)
        let startsASecond = keys.startsScan(at: .now)
        #expect(startsScan)
        #expect(!startsASecond, "one scan at a time")
        keys.taken(takenMeanwhile)
        // The scan's read began before that key's transaction committed, so the scan did not see it.
        keys.install(MailboxPipeline.KeyFilterState.filter(of: [written]))
        #expect(keys.mayBeWritten(written))
        #expect(keys.mayBeWritten(takenMeanwhile))
        #expect(!keys.mayBeWritten(KeyPresenceFilter.hash(Self.randomKey())))
        let scansAgain = keys.startsScan(at: .now)
        #expect(!scansAgain, "a filter with room needs no new scan")
        let later = KeyPresenceFilter.hash(Self.randomKey())
        keys.taken(later)
        #expect(keys.mayBeWritten(later))
    }

    @Test func aFailedScanIsRetriedAfterAWhile() {
        var keys = MailboxPipeline.KeyFilterState()
        let start = ContinuousClock.now
        let startsScan = keys.startsScan(at: start)
        #expect(startsScan)
        keys.scanFailed(at: start)
        #expect(keys.mayBeWritten(KeyPresenceFilter.hash(Self.randomKey())))
        let retriesAtOnce = keys.startsScan(at: start + .seconds(1))
        let retriesLater = keys.startsScan(at: start + MailboxPipeline.KeyFilterState.retryAfterFailure)
        #expect(!retriesAtOnce)
        #expect(retriesLater)
    }

    @Test func anOverfullFilterIsScannedAgainAndKeepsEveryKeyMeanwhile() {
        var keys = MailboxPipeline.KeyFilterState()
        _ = keys.startsScan(at: .now)
        keys.install(KeyPresenceFilter(capacity: 2))
        let taken = (0..<3).map { _ in KeyPresenceFilter.hash(Self.randomKey()) }
        for hash in taken { keys.taken(hash) }
        let scansAgain = keys.startsScan(at: .now)
        #expect(scansAgain, "three keys in a filter for two")
        #expect(taken.allSatisfy { keys.mayBeWritten($0) }, "the old filter answers while the scan runs")
        keys.scanFailed(at: .now)
        #expect(taken.allSatisfy { keys.mayBeWritten($0) }, "and after it failed")
    }

    /// Opens the database in `folder`, runs `body` on its mailboxes once the key filter holds what was written before
    /// (a first append starts the scan), and closes it.
    private func withMailboxes(
        in folder: URL,
        _ body: (SQLiteMailboxRepository, MailboxPipeline) async throws -> Void
    ) async throws {
        let database = try await SQLiteDatabase(path: folder.appendingPathComponent("relay.sqlite").path)
        let mailboxes = SQLiteMailboxRepository(database: database)
        _ = try await append(TestValues.envelope(from: TestValues.token(), to: TestValues.token()), to: mailboxes)
        await database.mailboxPipeline.keyScanEnded()
        #expect(database.mailboxPipeline.hasKeyFilter)
        try await body(mailboxes, database.mailboxPipeline)
        try database.close()
    }

    private func append(_ envelope: Envelope, to mailboxes: SQLiteMailboxRepository) async throws -> MailboxReceipt {
        try await mailboxes.append(envelope, receivedAt: TestValues.time(), mailboxCapacity: 100)
    }

    @Test func aRetryAfterARestartGetsItsFirstReceipt() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bob = TestValues.token()
        let waiting = TestValues.envelope(from: TestValues.token(), to: bob)
        let acknowledged = TestValues.envelope(from: TestValues.token(), to: bob)
        var first: [MailboxReceipt] = []
        try await withMailboxes(in: folder) { mailboxes, _ in
            first = [try await append(waiting, to: mailboxes), try await append(acknowledged, to: mailboxes)]
            _ = try await mailboxes.acknowledge([acknowledged.header.messageKey], for: bob, at: TestValues.time())
        }
        try await withMailboxes(in: folder) { mailboxes, pipeline in
            #expect(pipeline.mustLookUp(waiting.header.messageKey))
            #expect(pipeline.mustLookUp(acknowledged.header.messageKey))
            #expect(!pipeline.mustLookUp(Self.randomKey()), "a key never written is not looked for")
            for (envelope, receipt) in zip([waiting, acknowledged], first) {
                let again = try await append(envelope, to: mailboxes)
                #expect(!again.isNew)
                #expect(again.sequence == receipt.sequence)
            }
            let reused = TestValues.envelope(from: waiting.header.sender, to: bob, id: waiting.header.messageID)
            await #expect(throws: WotsError.self) { try await append(reused, to: mailboxes) }
            #expect(try await mailboxes.depth(of: bob) == 1)
        }
    }

    @Test func aKeyWrittenOnceTheFilterHoldsIsLookedForAgain() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMailboxes(in: folder) { mailboxes, pipeline in
            let bob = TestValues.token()
            let single = TestValues.envelope(from: TestValues.token(), to: bob)
            #expect(!pipeline.mustLookUp(single.header.messageKey))
            let receipt = try await append(single, to: mailboxes)
            #expect(pipeline.mustLookUp(single.header.messageKey))
            let again = try await append(single, to: mailboxes)
            #expect(again == MailboxReceipt(sequence: receipt.sequence, receivedAt: receipt.receivedAt, isNew: false))
            let batch = (0..<3).map { _ in TestValues.envelope(from: TestValues.token(), to: bob) }
            _ = try await mailboxes.append(batch: batch, receivedAt: TestValues.time(), mailboxCapacity: 100)
            for envelope in batch {
                #expect(pipeline.mustLookUp(envelope.header.messageKey))
                #expect(!(try await append(envelope, to: mailboxes)).isNew)
            }
            #expect(try await mailboxes.depth(of: bob) == 4)
        }
    }

    @Test func onlyAKeyTheFilterNeverSawIsTakenWithoutWaiting() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withMailboxes(in: folder) { mailboxes, pipeline in
            let bob = TestValues.token()
            let fresh = TestValues.envelope(from: TestValues.token(), to: bob)
            let spared = pipeline.keyFilterStatistics.lookupsSpared
            func appendNow(_ envelope: Envelope) throws -> PendingWrite<MailboxReceipt>? {
                try mailboxes.enqueueAppendNow(
                    envelope,
                    receivedAt: TestValues.time(),
                    mailboxCapacity: 100,
                    mailboxQuota: .max,
                    announce: { _ in false }
                )
            }

            let taken = try #require(try appendNow(fresh), "a key never written waited for the database")
            let receipt = try await taken.outcome()
            #expect(receipt.isNew)
            #expect(pipeline.keyFilterStatistics.lookupsSpared == spared + 1)
            let lookups = pipeline.keyFilterStatistics.lookupsMade
            #expect(try appendNow(fresh) == nil, "a key written before must be looked for in the database")
            #expect(pipeline.keyFilterStatistics.lookupsMade == lookups, "a lookup counted that was never made")
            #expect(try await mailboxes.depth(of: bob) == 1)
        }
    }

    @Test func aKeyCommittedWhileTheScanReadsIsLookedForAfterIt() async throws {
        let folder = try SQLiteTestBackend.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("relay.sqlite").path
        let recipients = (0..<4).map { _ in TestValues.token() }
        let earlier = (0..<1_000).map { TestValues.envelope(from: TestValues.token(), to: recipients[$0 % 4]) }
        let before = try await SQLiteDatabase(path: path)
        _ = try await SQLiteMailboxRepository(database: before).append(
            batch: earlier,
            receivedAt: TestValues.time(),
            mailboxCapacity: 10_000
        )
        try before.close()

        let (scanHasRead, scanHasReadSignal) = AsyncStream.makeStream(of: Void.self)
        let scanMayEnd = DispatchSemaphore(value: 0)
        defer { scanMayEnd.signal() }
        var configuration = SQLiteDatabase.Configuration()
        configuration.keyScanHasRead = {
            scanHasReadSignal.yield()
            scanMayEnd.wait()
        }
        let database = try await SQLiteDatabase(path: path, configuration: configuration)
        let mailboxes = SQLiteMailboxRepository(database: database)
        let pipeline = database.mailboxPipeline
        for await _ in scanHasRead { break }
        // The scan has read every key and its read transaction is still open: these commit after what it saw.
        let concurrent = (0..<200).map { TestValues.envelope(from: TestValues.token(), to: recipients[$0 % 4]) }
        let receipts = try await withThrowingTaskGroup(of: (Int, MailboxReceipt).self) { group in
            for (index, envelope) in concurrent.enumerated() {
                group.addTask { (index, try await mailboxes.append(envelope, receivedAt: TestValues.time())) }
            }
            var receipts: [Int: MailboxReceipt] = [:]
            for try await (index, receipt) in group { receipts[index] = receipt }
            return receipts
        }
        #expect(!pipeline.hasKeyFilter)
        scanMayEnd.signal()
        await pipeline.keyScanEnded()
        #expect(pipeline.hasKeyFilter)
        let notLookedFor = (earlier + concurrent).filter { !pipeline.mustLookUp($0.header.messageKey) }
        #expect(notLookedFor.isEmpty, "\(notLookedFor.count) keys written would not be looked for")
        for (index, envelope) in concurrent.enumerated() {
            let again = try await mailboxes.append(envelope, receivedAt: TestValues.time())
            #expect(!again.isNew && again.sequence == receipts[index]?.sequence)
        }
        try database.close()
    }
}

extension SQLiteMailboxRepository {
    fileprivate func append(_ envelope: Envelope, receivedAt: Date) async throws -> MailboxReceipt {
        try await self.append(envelope, receivedAt: receivedAt, mailboxCapacity: 10_000)
    }
}

extension MailboxPipeline.KeyFilterState {
    /// A filter of the keys given, sized as a scan sizes it.
    static func filter(of hashes: [UInt64]) -> KeyPresenceFilter {
        var filter = Self.emptyFilter(for: hashes.count)
        for hash in hashes { filter.insert(hash) }
        return filter
    }
}
