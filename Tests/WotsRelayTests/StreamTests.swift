import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

/// Live delivery over real WebSockets on loopback: queued then live mail, redelivery, back-pressure, resync.
@Suite struct StreamTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func queuedMessagesArriveFirstThenLiveOnes() async throws {
        try await StreamRelay.run { relay in
            let queued = try seal("while you were away", from: alice, to: bob)
            _ = try await relay.client.send(queued, session: relay.aliceSession)
            let socket = try await TestSocket.connect(port: relay.port)
            try await socket.send(.auth(session: relay.bobSession), ref: "hello")
            #expect(await socket.next() == .frame(.ready(ref: "hello", token: bob.token)))
            #expect(await socket.next().frame?.deliveredMessage?.envelope == queued)
            let live = try seal("right now", from: alice, to: bob)
            _ = try await relay.client.send(live, session: relay.aliceSession)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == live)
            await socket.close()
        }
    }

    @Test func unacknowledgedMessagesComeAgainAfterReconnectingAndAcknowledgedOnesDoNot() async throws {
        try await StreamRelay.run { relay in
            let kept = try seal("not acked", from: alice, to: bob)
            let acked = try seal("acked", from: alice, to: bob)
            _ = try await relay.client.send(acked, session: relay.aliceSession)
            _ = try await relay.client.send(kept, session: relay.aliceSession)
            let first = try await relay.connect(as: bob)
            #expect(await first.messages(2).map(\.envelope) == [acked, kept])
            try await first.send(.ack([acked.header.messageKey]), ref: "a1")
            #expect(await first.next() == .frame(.acked(ref: "a1", messages: [acked.header.messageKey])))
            await first.close()

            let second = try await relay.connect(as: bob)
            #expect(await second.next().frame?.deliveredMessage?.envelope == kept)
            #expect(await second.next(timeout: .milliseconds(300)) == .timedOut, "the acknowledged one is gone")
            await second.close()
        }
    }

    @Test func twoSendersUsingOneIDAreTwoMessagesAndAckingOneLeavesTheOther() async throws {
        try await StreamRelay.run { relay in
            let id = UUID()
            let fromAlice = try seal("from alice", from: alice, to: bob, id: id)
            let fromCarol = try seal("from carol", from: TestIdentities.carol, to: bob, id: id)
            #expect(try await relay.client.send(fromAlice, session: relay.aliceSession).status == .accepted)
            #expect(try await relay.client.send(fromCarol, session: relay.carolSession).status == .accepted)
            let socket = try await relay.connect(as: bob)
            #expect(await socket.messages(2).map(\.envelope) == [fromAlice, fromCarol])
            try await socket.send(.ack([fromAlice.header.messageKey]), ref: "one")
            #expect(await socket.next() == .frame(.acked(ref: "one", messages: [fromAlice.header.messageKey])))
            #expect(try await relay.client.mailbox(session: relay.bobSession).map(\.envelope) == [fromCarol])
            await socket.close()
        }
    }

    @Test func aRetriedSendIsAnsweredAgainButNeverDeliveredTwice() async throws {
        try await StreamRelay.run { relay in
            let reader = try await relay.connect(as: bob)
            let sender = try await relay.connect(as: alice)
            let envelope = try seal("once", from: alice, to: bob)
            try await sender.send(.send(envelope), ref: "first")
            guard case .accepted(_, let id, let seq, let receivedAt) = await sender.next().frame else {
                Issue.record("no accepted frame")
                return
            }
            #expect(await reader.next().frame?.deliveredMessage?.envelope == envelope)
            try await reader.send(.ack([envelope.header.messageKey]), ref: "ack")
            #expect(await reader.next().frame == .acked(ref: "ack", messages: [envelope.header.messageKey]))

            try await sender.send(.send(envelope), ref: "retry")
            #expect(await sender.next() == .frame(.accepted(ref: "retry", id: id, seq: seq, receivedAt: receivedAt)))
            #expect(await reader.next(timeout: .milliseconds(500)) == .timedOut, "an acknowledged retry is not sent")
            #expect(try await relay.client.mailbox(session: relay.bobSession).isEmpty)
            await sender.close()
            await reader.close()
        }
    }

    @Test func concurrentSendersReachAConnectedRecipientOnceEachInSequenceOrder() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: bob)
            let envelopes = try (0..<200).map { try seal("message \($0)", from: alice, to: bob) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for envelope in envelopes {
                    group.addTask {
                        let status = try await relay.client.send(envelope, session: relay.aliceSession).status
                        #expect(status == .accepted)
                    }
                }
                try await group.waitForAll()
            }
            let delivered = await socket.messages(envelopes.count)
            #expect(delivered.map(\.seq) == Array(1...200), "every sequence once, in order")
            #expect(Set(delivered.map(\.envelope.header.messageID)) == Set(envelopes.map(\.header.messageID)))
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "nothing delivered twice")
            await socket.close()
        }
    }

    @Test func moreThanABatchOfQueuedMailArrivesInOrderThenLiveMail() async throws {
        try await StreamRelay.run { relay in
            var queued: [Envelope] = []
            for index in 0..<105 {
                let envelope = try seal("queued \(index)", from: alice, to: bob)
                _ = try await relay.client.send(envelope, session: relay.aliceSession)
                queued.append(envelope)
            }
            let socket = try await relay.connect(as: bob)
            #expect(await socket.messages(105).map(\.envelope) == queued)
            let live = try seal("afterwards", from: alice, to: bob)
            _ = try await relay.client.send(live, session: relay.aliceSession)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == live)
            await socket.close()
        }
    }

    @Test func mailTheBusNeverAnnouncedArrivesWithTheResync() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.resyncInterval = .seconds(30)
        let clock = ManualClock()
        let storage = RelayStorage.inMemory()
        try await StreamRelay.run(configuration: configuration, storage: storage, clock: clock) { relay in
            let socket = try await relay.connect(as: bob)
            // Announced mail arriving proves the courier's first mailbox read is over: that read must not find the
            // unannounced message, or this test would prove nothing about the resync.
            let announced = try seal("announced", from: alice, to: bob)
            _ = try await relay.client.send(announced, session: relay.aliceSession)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == announced)
            let unannounced = try seal("appended behind the relay's back", from: alice, to: bob)
            _ = try await storage.mailboxes.append(unannounced, receivedAt: Date(), mailboxCapacity: 100)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "nothing before the resync is due")
            let event = await socket.next(advancing: clock, by: .seconds(1), until: { $0.frame != nil })
            #expect(event.frame?.deliveredMessage?.envelope == unannounced)
            #expect(clock.now.offset >= .seconds(30), "not before the resync was due")
            await socket.close()
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aReaderThatStopsReadingHoldsUpNobodyAndLosesNothing() async throws {
        try await StreamRelay.run { relay in
            // ~26 MB of queued mail for bob: far more than the socket buffers between the relay and a stalled reader.
            let large = String(repeating: "x", count: 48_000)
            var queued: [Envelope] = []
            for number in 0..<400 {
                let envelope = try seal("\(number) \(large)", from: alice, to: bob)
                #expect(try await relay.client.send(envelope, session: relay.aliceSession).status == .accepted)
                queued.append(envelope)
            }
            let stalled = try StalledSocket(port: relay.port, session: relay.bobSession)
            let connected = try await relay.waitForMetric("wots_websocket_connections") { $0 == 1 }
            #expect(connected, "the stalled reader is connected")
            let metrics = try await relay.metrics()
            #expect(metrics.metric("wots_messages_delivered_total") < 400, "the relay waits for the reader")

            let reader = try await relay.connect(as: alice)
            let live = try seal("the relay is not stuck", from: bob, to: alice)
            let start = ContinuousClock.now
            #expect(try await relay.client.send(live, session: relay.bobSession).status == .accepted)
            #expect(await reader.next(timeout: .seconds(2)).frame?.deliveredMessage?.envelope == live)
            #expect(ContinuousClock.now - start < .seconds(1), "another socket waited on the stalled one")
            await reader.close()

            stalled.close()
            let again = try await relay.connect(as: bob)
            #expect(await again.messages(queued.count).map(\.envelope) == queued, "unacknowledged mail comes again")
            await again.close()
        }
    }

    @Test func aSocketWithoutAValidSessionIsRefusedAndClosed() async throws {
        try await StreamRelay.run { relay in
            let socket = try await TestSocket.connect(port: relay.port)
            try await socket.send(.auth(session: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), ref: "login")
            guard case .error(let ref, nil, let code, _) = await socket.next().frame else {
                Issue.record("no error frame")
                return
            }
            #expect(ref == "login")
            #expect(code == .invalidSession)
            #expect(await socket.next() == .closed)
            await socket.close()
        }
    }

    @Test func aSocketThatNeverAuthenticatesIsClosedWhenItsDeadlinePasses() async throws {
        let clock = ManualClock()
        try await StreamRelay.run(clock: clock) { relay in
            let socket = try await TestSocket.connect(port: relay.port)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "open until the deadline")
            let event = await socket.next(advancing: clock, by: .milliseconds(500), until: { $0 == .closed })
            #expect(event == .closed)
            #expect(clock.now.offset >= RelayHarness.testConfiguration.authenticationTimeout)
            await socket.close()
        }
    }
}

extension String {
    /// The value of a Prometheus sample without labels in this exposition text, 0 when absent.
    func metric(_ name: String) -> Double {
        for line in self.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? .nan
        }
        return 0
    }
}
