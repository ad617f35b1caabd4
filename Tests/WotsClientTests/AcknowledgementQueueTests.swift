import Foundation
import Logging
import Synchronization
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsClient

/// A stream's acknowledgements: one `ack` frame unanswered at a time, what is handled meanwhile going out together
/// in the next, nothing lost when the relay refuses one.
@Suite struct AcknowledgementQueueTests {
    private static func keys(_ count: Int) -> [MessageKey] {
        (0..<count).map { _ in MessageKey(sender: TestIdentities.alice.token, id: UUID()) }
    }

    @Test func aQuietStreamAcknowledgesEachMessageAtOnce() throws {
        var queue = AcknowledgementQueue()
        let (first, second) = (Self.keys(1)[0], Self.keys(1)[0])
        let frame = try Self.sent(queue.add(first))
        #expect(frame.keys == [first])
        let nothingWaited = queue.answered(frame.ref)
        #expect(nothingWaited == nil)
        let next = try Self.sent(queue.add(second))
        #expect(next.keys == [second])
        #expect(next.ref != frame.ref)
    }

    @Test func messagesHandledWhileOneFrameIsUnansweredGoOutTogetherWhenItIsAnswered() throws {
        var queue = AcknowledgementQueue()
        let keys = Self.keys(4)
        let first = try Self.sent(queue.add(keys[0]))
        for key in keys[1...] {
            let held = queue.add(key)
            #expect(held == nil)
        }
        let otherReply = queue.answered("ack-elsewhere")
        #expect(otherReply == nil, "a reply to another frame sends nothing")
        let second = try Self.sent(queue.answered(first.ref))
        #expect(second.keys == Array(keys[1...]))
        #expect(queue.waiting.isEmpty)
        let after = queue.answered(second.ref)
        #expect(after == nil)
        #expect(queue.unanswered == nil)
    }

    @Test func aFrameCarriesAtMostTheRelaysLimitAndTheRestFollows() throws {
        var queue = AcknowledgementQueue()
        let keys = Self.keys(AcknowledgeRequest.maximumCount + 2)
        let first = try Self.sent(queue.add(keys[0]))
        for key in keys[1...] { _ = queue.add(key) }
        let full = try Self.sent(queue.answered(first.ref))
        #expect(full.keys == Array(keys[1...AcknowledgeRequest.maximumCount]))
        let rest = try Self.sent(queue.answered(full.ref))
        #expect(rest.keys == [keys[AcknowledgeRequest.maximumCount + 1]])
    }

    @Test func aRefusedFrameIsSentAgainFirstWithWhatWasHandledMeanwhile() throws {
        var queue = AcknowledgementQueue()
        let keys = Self.keys(3)
        let refused = try Self.sent(queue.add(keys[0]))
        _ = queue.add(keys[1])
        #expect(queue.isUnanswered(refused.ref))
        queue.refused(refused.ref)
        #expect(!queue.isUnanswered(refused.ref))
        #expect(queue.waiting == [keys[0], keys[1]], "the refused key waits again, first")
        let again = try Self.sent(queue.takeNext())
        #expect(again.keys == [keys[0], keys[1]])
        #expect(again.ref != refused.ref)
        let held = queue.add(keys[2])
        #expect(held == nil)
        let last = try Self.sent(queue.answered(again.ref))
        #expect(last.keys == [keys[2]])
    }

    @Test func aRefusalOfAnotherFrameChangesNothing() throws {
        var queue = AcknowledgementQueue()
        let keys = Self.keys(2)
        let frame = try Self.sent(queue.add(keys[0]))
        _ = queue.add(keys[1])
        queue.refused("ack-elsewhere")
        #expect(queue.unanswered == frame)
        #expect(queue.waiting == [keys[1]])
    }

    @Test func aStreamThatEndsSendsEveryWaitingKeyWithoutWaitingForTheUnansweredFrame() throws {
        var queue = AcknowledgementQueue()
        let keys = Self.keys(AcknowledgeRequest.maximumCount + 2)
        let unanswered = try Self.sent(queue.add(keys[0]))
        for key in keys.dropFirst() { #expect(queue.add(key) == nil) }

        let last = queue.remainingFrames()
        #expect(last.map(\.keys.count) == [AcknowledgeRequest.maximumCount, 1])
        #expect(last.flatMap(\.keys) == Array(keys.dropFirst()))
        #expect(Set(last.map(\.ref)).count == 2 && !last.contains { $0.ref == unanswered.ref })
        #expect(queue.remainingFrames().isEmpty)
    }

    private static func sent(_ frame: AcknowledgementQueue.Frame?) throws -> AcknowledgementQueue.Frame {
        try #require(frame, "a frame is due")
    }
}

/// The queue in a real stream: a mailbox of queued messages comes in one burst, and every message the listener
/// handled is acknowledged at the relay, however the acknowledgements were gathered.
@Suite struct StreamAcknowledgementTests {
    @Test func aListenerAcknowledgesEveryMessageOfABurstAndShowsEachOnce() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let count = 60
            for index in 0..<count { _ = try await alice.send("message \(index)", to: TestIdentities.bob.nickname) }
            let mailboxes = relay.relay.storage.mailboxes
            #expect(try await mailboxes.depth(of: TestIdentities.bob.token) == count)

            let shown = Mutex<[String]>([])
            let listening = Task {
                try await bob.listen(
                    status: { _ in },
                    show: { message in shown.withLock { $0.append(message.text ?? "") } }
                )
            }
            defer { listening.cancel() }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await mailboxes.depth(of: TestIdentities.bob.token) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await mailboxes.depth(of: TestIdentities.bob.token) == 0)
            #expect(shown.withLock { $0 } == (0..<count).map { "message \($0)" })
        }
    }

    @Test func anAcknowledgementTheRelayRefusedIsSentAgainAfterAPause() async throws {
        var storage = RelayStorage.inMemory()
        let refusing = RefusingAcknowledgements(base: storage.mailboxes, refusals: 1)
        storage.mailboxes = refusing
        try await LiveRelay.run(storage: storage) { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let count = 3
            for index in 0..<count { _ = try await alice.send("message \(index)", to: TestIdentities.bob.nickname) }

            // A stream without group slots: the refusing mailboxes hold none.
            _ = try await bob.unlock()
            let stream = StreamClient(relay: bob.relay, logger: Logger(label: "wots.test"))
            let listening = Task { try await stream.run(status: { _ in }) { _ in true } }
            defer { listening.cancel() }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await refusing.depth(of: TestIdentities.bob.token) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await refusing.depth(of: TestIdentities.bob.token) == 0, "the refused keys were not sent again")
            #expect(refusing.refusalCount == 1)
        }
    }

    @Test func messagesHandledBeforeAListenerStopsAreAcknowledgedAsItStops() async throws {
        try await LiveRelay.run { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let (count, handledBeforeStopping) = (60, 30)
            for index in 0..<count { _ = try await alice.send("message \(index)", to: TestIdentities.bob.nickname) }

            let handled = Mutex(0)
            let (stopping, stop) = AsyncStream.makeStream(of: Void.self)
            let stream = StreamClient(relay: bob.relay, logger: Logger(label: "wots.test"))
            _ = try await bob.unlock()
            let listening = Task {
                defer { stop.finish() }
                try await stream.run(status: { _ in }) { _ in
                    let number = handled.withLock { count in
                        count += 1
                        return count
                    }
                    if number == handledBeforeStopping { stop.yield() }
                    return number <= handledBeforeStopping
                }
            }
            for await _ in stopping { break }
            listening.cancel()
            if case .failure(let error) = await listening.result, !(error is CancellationError) {
                Issue.record("the listener failed: \(error)")
            }
            #expect(handled.withLock { $0 } >= handledBeforeStopping)

            // Frames read before the socket closed are answered after it, by nothing the test can wait on.
            let mailboxes = relay.relay.storage.mailboxes
            let deadline = ContinuousClock.now + .seconds(20)
            while try await mailboxes.depth(of: TestIdentities.bob.token) > count - handledBeforeStopping,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(
                try await mailboxes.depth(of: TestIdentities.bob.token) == count - handledBeforeStopping,
                "every message handled is acknowledged, and none other"
            )
        }
    }
}
