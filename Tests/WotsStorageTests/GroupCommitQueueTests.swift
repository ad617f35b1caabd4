import Synchronization
import Testing
import WotsCore
import WotsStorage

@Suite struct GroupCommitQueueTests {
    static let writers = 100

    @Test func concurrentWritesShareTransactionsAndEachGetsItsOwnOutcome() async throws {
        let commits = CommitLog()
        let gate = Gate()
        let queue = GroupCommitQueue<Int, Int> { requests in
            commits.record(requests.count)
            // The first transaction waits until every writer has submitted, so the rest queue up behind it.
            await gate.wait()
            return requests.map { .success($0 * 2) }
        }
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for request in 0..<Self.writers {
                group.addTask {
                    gate.arrive(expecting: Self.writers)
                    return (request, try await queue.submit(request))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == Self.writers)
        #expect(answers.allSatisfy { $0.value == $0.key * 2 }, "each writer gets its own outcome")
        #expect(commits.sizes.reduce(0, +) == Self.writers)
        #expect(commits.sizes.count < Self.writers, "every write committed alone: \(commits.sizes)")
    }

    @Test func aGroupNeverExceedsItsMaximumSize() async throws {
        let commits = CommitLog()
        let queue = GroupCommitQueue<Int, Int>(maximumGroupSize: 7) { requests in
            commits.record(requests.count)
            await Task.yield()
            return requests.map { .success($0) }
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for request in 0..<50 { group.addTask { try await queue.submit(request) } }
            try await group.waitForAll()
        }
        #expect(commits.sizes.reduce(0, +) == 50)
        #expect((commits.sizes.max() ?? 0) <= 7)
    }

    @Test func aRefusedWriteFailsAloneAndItsNeighboursLand() async throws {
        let queue = GroupCommitQueue<Int, Int> { requests in
            requests.map { $0 % 10 == 3 ? .failure(WotsError(.mailboxFull, "\($0) is full")) : .success($0) }
        }
        let outcomes = await Self.submitConcurrently(Self.writers, to: queue)
        for (request, outcome) in outcomes {
            if request % 10 == 3 {
                #expect(outcome == .failure(WotsError(.mailboxFull, "")), "write \(request)")
            } else {
                #expect(outcome == .success(request), "write \(request)")
            }
        }
    }

    @Test func aFailedTransactionFailsEveryWriteInItAndTheQueueGoesOn() async throws {
        let failing = Mutex(true)
        let queue = GroupCommitQueue<Int, Int> { requests in
            if failing.withLock({ $0 }) { throw WotsError(.storageUnavailable, "disk on fire") }
            return requests.map { .success($0) }
        }
        let outcomes = await Self.submitConcurrently(Self.writers, to: queue)
        #expect(outcomes.values.allSatisfy { $0 == .failure(WotsError(.storageUnavailable, "")) })
        failing.withLock { $0 = false }
        #expect(try await queue.submit(7) == 7)
    }

    @Test func aCommitThatNeverReturnsFailsItsWritesAtTheDeadlineAndLaterWritesLand() async throws {
        let hangs = Mutex(true)
        let queue = GroupCommitQueue<Int, Int>(deadline: .milliseconds(200)) { requests in
            if hangs.withLock({ $0 }) {
                // A transaction on a connection that died without a word: it never answers, not even to cancellation.
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            }
            return requests.map { .success($0) }
        }
        let outcomes = await Self.submitConcurrently(Self.writers, to: queue)
        #expect(outcomes.count == Self.writers)
        #expect(outcomes.values.allSatisfy { $0 == .failure(WotsError(.storageUnavailable, "")) })
        hangs.withLock { $0 = false }
        #expect(try await queue.submit(7) == 7, "the queue is not wedged by the stuck transaction")
    }

    @Test func aCommitThatAnswersTooFewWritesFailsThemAll() async throws {
        let queue = GroupCommitQueue<Int, Int> { _ in [] }
        let outcomes = await Self.submitConcurrently(10, to: queue)
        #expect(outcomes.values.allSatisfy { $0 == .failure(WotsError(.storageCorrupted, "")) })
    }

    private static func submitConcurrently(
        _ count: Int,
        to queue: GroupCommitQueue<Int, Int>
    ) async -> [Int: Result<Int, WotsError>] {
        await withTaskGroup(of: (Int, Result<Int, WotsError>).self) { group in
            for request in 0..<count {
                group.addTask {
                    do {
                        return (request, .success(try await queue.submit(request)))
                    } catch let error as WotsError {
                        return (request, .failure(error))
                    } catch {
                        return (request, .failure(WotsError(.internalError, "\(error)")))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }
}

/// How many requests each commit held.
private final class CommitLog: Sendable {
    private let state = Mutex<[Int]>([])

    func record(_ size: Int) { self.state.withLock { $0.append(size) } }
    var sizes: [Int] { self.state.withLock { $0 } }
}

/// Opens once `expecting` arrivals were counted; waiting before that suspends.
private final class Gate: Sendable {
    private struct State {
        var arrived = 0
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func arrive(expecting count: Int) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.arrived += 1
            guard state.arrived >= count, !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = self.state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if open { continuation.resume() }
        }
    }
}
