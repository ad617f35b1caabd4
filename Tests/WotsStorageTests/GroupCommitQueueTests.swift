import Synchronization
import Testing
import WotsCore
import WotsStorage

@Suite struct GroupCommitQueueTests {
    @Test func concurrentWritesShareTransactions() async throws {
        let commits = CommitLog()
        let queue = GroupCommitQueue<Int, Int> { requests in
            commits.sizes.withLock { $0.append(requests.count) }
            try await Task.sleep(for: .milliseconds(20))
            return requests.map { .success($0 * 2) }
        }
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for request in 0..<100 {
                group.addTask { (request, try await queue.submit(request)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 100)
        #expect(answers.allSatisfy { $0.value == $0.key * 2 }, "each writer gets its own outcome")
        let sizes = commits.sizes.withLock { $0 }
        #expect(sizes.reduce(0, +) == 100)
        #expect(sizes.count < 100, "every write committed alone: \(sizes)")
    }

    @Test func aGroupNeverExceedsItsMaximumSize() async throws {
        let commits = CommitLog()
        let queue = GroupCommitQueue<Int, Int>(maximumGroupSize: 7) { requests in
            commits.sizes.withLock { $0.append(requests.count) }
            try await Task.sleep(for: .milliseconds(5))
            return requests.map { .success($0) }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for request in 0..<50 { group.addTask { try await queue.submit(request) } }
            try await group.waitForAll()
        }
        #expect(commits.sizes.withLock { $0.max() ?? 0 } <= 7)
    }

    @Test func aRefusedWriteFailsAloneAndItsNeighboursLand() async throws {
        let queue = GroupCommitQueue<Int, Int> { requests in
            requests.map { $0 == 3 ? .failure(WotsError(.mailboxFull, "three is full")) : .success($0) }
        }
        await expectStorageError(.mailboxFull) { _ = try await queue.submit(3) }
        #expect(try await queue.submit(4) == 4)
    }

    @Test func aFailedTransactionFailsEveryWriteInIt() async throws {
        let queue = GroupCommitQueue<Int, Int> { _ in throw WotsError(.storageUnavailable, "disk on fire") }
        await expectStorageError(.storageUnavailable) { _ = try await queue.submit(1) }
    }

    @Test func aCommitThatAnswersTooFewWritesFailsThemAll() async throws {
        let queue = GroupCommitQueue<Int, Int> { _ in [] }
        await expectStorageError(.storageCorrupted) { _ = try await queue.submit(1) }
    }
}

/// How many requests each commit held.
private final class CommitLog: Sendable {
    let sizes = Mutex<[Int]>([])
}
