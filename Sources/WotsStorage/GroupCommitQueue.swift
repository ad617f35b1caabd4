import Synchronization
public import WotsCore

/// Group commit: requests that arrive while a transaction is being written wait together and go into the next one,
/// so many concurrent writers share one round trip and one fsync instead of paying one each.
///
/// The queue never runs two commits at once; callers that need several writers run several queues. A commit that
/// takes longer than `deadline` fails its whole group with `storage_unavailable` and the queue moves on, so a
/// transaction stuck on a dead connection cannot hold up every later write.
public final class GroupCommitQueue<Request: Sendable, Outcome: Sendable>: Sendable {
    /// Writes requests in one transaction and returns one outcome per request, in order. A thrown error fails
    /// every request of the group.
    public typealias Commit = @Sendable ([Request]) async throws -> [Result<Outcome, WotsError>]

    private struct Waiter: Sendable {
        var request: Request
        var write: PendingWrite<Outcome>
    }

    private struct State: Sendable {
        var waiting: [Waiter] = []
        var isDraining = false
    }

    /// Most requests in one transaction, so a flood of writers still gets answers in bounded time.
    public let maximumGroupSize: Int

    /// Longest one commit may take.
    public let deadline: Duration

    private let state = Mutex(State())
    private let commit: Commit

    public init(maximumGroupSize: Int = 512, deadline: Duration = .seconds(10), commit: @escaping Commit) {
        self.maximumGroupSize = max(1, maximumGroupSize)
        self.deadline = deadline
        self.commit = commit
    }

    /// Queues a request and waits until the transaction holding it committed.
    public func submit(_ request: Request) async throws -> Outcome {
        try await self.enqueue(request).outcome()
    }

    /// Queues a request and returns at once: requests enqueued one after another are written in that order.
    public func enqueue(_ request: Request) -> PendingWrite<Outcome> {
        let write = PendingWrite<Outcome>()
        let startsDraining = self.state.withLock { state in
            state.waiting.append(Waiter(request: request, write: write))
            defer { state.isDraining = true }
            return !state.isDraining
        }
        if startsDraining {
            // The drain outlives any one caller: a transaction that started must finish and answer everyone in it.
            Task { await self.drain() }
        }
        return write
    }

    private func drain() async {
        while true {
            let group = self.state.withLock { state -> [Waiter] in
                guard !state.waiting.isEmpty else {
                    state.isDraining = false
                    return []
                }
                let count = min(state.waiting.count, self.maximumGroupSize)
                let group = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                return group
            }
            guard !group.isEmpty else { return }
            do {
                let requests = group.map(\.request)
                let results = try await Deadline.run(self.deadline, "commit \(requests.count) writes") {
                    try await self.commit(requests)
                }
                guard results.count == group.count else {
                    throw WotsError(
                        .storageCorrupted,
                        "a group commit answered \(results.count) of \(group.count) writes"
                    )
                }
                for (waiter, result) in zip(group, results) {
                    waiter.write.settle(result.mapError { $0 })
                }
            } catch {
                for waiter in group {
                    waiter.write.settle(.failure(error))
                }
            }
        }
    }
}
