import Foundation
import Synchronization
import WotsCore
import WotsStorage

/// Group commit for mailbox appends: appends that arrive while a transaction is being written wait together and
/// go into the next one, so many concurrent senders share one fsync instead of paying one each.
final class MailboxAppendQueue: Sendable {
    /// One `append` call's arguments.
    struct Request: Sendable {
        var envelope: Envelope
        var receivedAt: Date
        var mailboxCapacity: Int
    }

    /// Writes requests in one transaction, one outcome per request in order.
    typealias Commit = @Sendable ([Request]) async throws -> [Result<MailboxReceipt, StorageError>]

    private struct Waiter: Sendable {
        var request: Request
        var continuation: CheckedContinuation<MailboxReceipt, any Error>
    }

    private struct State: Sendable {
        var waiting: [Waiter] = []
        var isDraining = false
    }

    /// Most requests in one transaction, so a flood of senders still gets answers in bounded time.
    static let maximumGroupSize = 512

    private let state = Mutex(State())
    private let commit: Commit

    init(commit: @escaping Commit) {
        self.commit = commit
    }

    /// Queues an append and waits until the transaction holding it committed.
    func append(_ request: Request) async throws -> MailboxReceipt {
        try await withCheckedThrowingContinuation { continuation in
            let startsDraining = self.state.withLock { state in
                state.waiting.append(Waiter(request: request, continuation: continuation))
                defer { state.isDraining = true }
                return !state.isDraining
            }
            if startsDraining {
                // The drain outlives any one caller: a transaction that started must finish and answer everyone in it.
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while true {
            let group = self.state.withLock { state -> [Waiter] in
                guard !state.waiting.isEmpty else {
                    state.isDraining = false
                    return []
                }
                let count = min(state.waiting.count, Self.maximumGroupSize)
                let group = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                return group
            }
            guard !group.isEmpty else { return }
            do {
                let results = try await self.commit(group.map(\.request))
                for (waiter, result) in zip(group, results) {
                    waiter.continuation.resume(with: result)
                }
            } catch {
                for waiter in group {
                    waiter.continuation.resume(throwing: error)
                }
            }
        }
    }
}
