import Testing
import WotsCore
import WotsStorage

@Suite struct StorageHealthTests {
    @Test func anUnavailableDatabaseIsReportedUntilSomethingSucceeds() {
        let health = StorageHealth()
        #expect(health.condition == .healthy)
        health.record(.failure(WotsError(.storageUnavailable, "gone")))
        #expect(health.condition == .unavailable(reason: "gone"))
        health.record(.failure(WotsError(.mailboxFull, "a refusal says nothing about the database")))
        #expect(health.condition == .unavailable(reason: "gone"))
        health.record(.success(()))
        #expect(health.condition == .healthy)
    }

    @Test func shortageOfSpaceEndsOnlyWithAProbeThatFindsRoom() {
        let health = StorageHealth()
        health.record(.failure(WotsError(.storageFull, "below the reserve")))
        health.record(.success(()))
        #expect(health.condition == .shortOfSpace(reason: "below the reserve"), "an acknowledgement frees little")
        health.recordProbe(.success(()))
        #expect(health.condition == .healthy)
    }

    @Test func operationsFailFastOnlyWhileSomethingProbes() {
        let health = StorageHealth()
        health.record(.failure(WotsError(.storageUnavailable, "gone")))
        #expect(health.fastFailure == nil, "nobody would ever notice the recovery")
        health.failFast(true)
        #expect(health.fastFailure?.code == .storageUnavailable)
        health.recordProbe(.success(()))
        #expect(health.fastFailure == nil)
    }
}

@Suite struct DeadlineTests {
    @Test func workThatNeverAnswersFailsAtTheDeadline() async {
        await expectStorageError(.storageUnavailable) {
            _ = try await Deadline.run(.milliseconds(100), "answer") {
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            }
        }
    }

    @Test func workThatAnswersInTimeGivesItsValueOrItsError() async throws {
        #expect(try await Deadline.run(.seconds(5), "answer") { 42 } == 42)
        await expectStorageError(.notFound) {
            _ = try await Deadline.run(.seconds(5), "answer") { () async throws -> Int in
                throw WotsError(.notFound, "nothing")
            }
        }
    }

    @Test func aCancelledCallerStopsWaitingAtOnce() async {
        let waiting = Task {
            try await Deadline.run(.seconds(60), "answer") {
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
