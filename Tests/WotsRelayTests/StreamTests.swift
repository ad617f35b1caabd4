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

@Suite struct StreamTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    /// Runs a live relay on port 0 with alice and bob registered and logged in.
    func live(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        storage: RelayStorage = .inMemory(),
        _ body:
            @Sendable (_ client: any TestClientProtocol, _ port: Int, _ alice: String, _ bob: String) async throws ->
            Void
    ) async throws {
        let harness = try await RelayHarness.make(configuration: configuration, storage: storage)
        try await harness.relay.buildApplication().test(.live) { client in
            try await client.register(alice)
            try await client.register(bob)
            let aliceSession = try await client.login(alice)
            let bobSession = try await client.login(bob)
            try await body(client, try #require(client.port), aliceSession, bobSession)
        }
    }

    @Test func queuedMessagesArriveFirstThenLiveOnes() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            let queued = try seal("while you were away", from: alice, to: bob)
            _ = try await client.send(queued, session: aliceSession)
            let socket = try await TestSocket.connect(port: port)
            try await socket.send(.auth(session: bobSession))
            #expect(await socket.next() == .ready(token: bob.token))
            #expect(await socket.next()?.deliveredMessage?.envelope == queued)
            let live = try seal("right now", from: alice, to: bob)
            _ = try await client.send(live, session: aliceSession)
            #expect(await socket.next()?.deliveredMessage?.envelope == live)
            await socket.close()
        }
    }

    @Test func unacknowledgedMessagesComeAgainAfterReconnectingAndAcknowledgedOnesDoNot() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            let kept = try seal("not acked", from: alice, to: bob)
            let acked = try seal("acked", from: alice, to: bob)
            _ = try await client.send(acked, session: aliceSession)
            _ = try await client.send(kept, session: aliceSession)
            let first = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await first.next() == .ready(token: bob.token))
            #expect(await first.next()?.deliveredMessage?.envelope == acked)
            #expect(await first.next()?.deliveredMessage?.envelope == kept)
            try await first.send(.ack(ids: [acked.header.messageID]))
            try await Task.sleep(for: .milliseconds(200))
            await first.close()

            let second = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await second.next() == .ready(token: bob.token))
            #expect(await second.next()?.deliveredMessage?.envelope == kept)
            #expect(await second.next(timeout: .milliseconds(300)) == nil)
            await second.close()
        }
    }

    @Test func sendingOverTheSocketIsAcceptedOrRefusedByID() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            let socket = try await TestSocket.connect(port: port, headerSession: aliceSession)
            #expect(await socket.next() == .ready(token: alice.token))
            let envelope = try seal("over the socket", from: alice, to: bob)
            try await socket.send(.send(envelope: envelope))
            guard case .accepted(let id, _, _) = await socket.next() else {
                Issue.record("no accepted frame")
                return
            }
            #expect(id == envelope.header.messageID)

            let forged = try seal("pretending", from: bob, to: alice)
            try await socket.send(.send(envelope: forged))
            guard case .error(let errorID, let code, _) = await socket.next() else {
                Issue.record("no error frame")
                return
            }
            #expect(errorID == forged.header.messageID)
            #expect(code == .senderMismatch)
            #expect(try await client.mailbox(session: bobSession).map(\.envelope) == [envelope])
            await socket.close()
        }
    }

    @Test func garbageFramesGetAnErrorAndTheRelayKeepsServing() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            let attacker = try await TestSocket.connect(port: port, headerSession: aliceSession)
            #expect(await attacker.next() == .ready(token: alice.token))
            for garbage in ["not json", "{}", "{\"type\": \"launch\"}", "{\"type\": \"ack\", \"ids\": [1]}", "[]"] {
                try await attacker.sendRaw(garbage)
                guard case .error(_, let code, let message) = await attacker.next() else {
                    Issue.record("no error frame for \(garbage)")
                    continue
                }
                #expect(code == .invalidFrame)
                #expect(!message.isEmpty)
            }
            let reader = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await reader.next() == .ready(token: bob.token))
            let envelope = try seal("still working", from: alice, to: bob)
            try await attacker.send(.send(envelope: envelope))
            #expect(await reader.next()?.deliveredMessage?.envelope == envelope)
            await attacker.close()
            await reader.close()
        }
    }

    @Test func concurrentSendersReachAConnectedRecipientOnceEachInSequenceOrder() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            let socket = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await socket.next() == .ready(token: bob.token))
            let envelopes = try (0..<200).map { try seal("message \($0)", from: alice, to: bob) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for envelope in envelopes {
                    group.addTask {
                        let status = try await client.send(envelope, session: aliceSession).status
                        #expect(status == .accepted)
                    }
                }
                try await group.waitForAll()
            }
            var delivered: [DeliveredMessage] = []
            while delivered.count < envelopes.count,
                let message = await socket.next(timeout: .seconds(5))?.deliveredMessage
            {
                delivered.append(message)
            }
            #expect(delivered.map(\.seq) == Array(1...200), "every sequence once, in order")
            #expect(Set(delivered.map(\.envelope.header.messageID)) == Set(envelopes.map(\.header.messageID)))
            #expect(await socket.next(timeout: .milliseconds(300)) == nil, "nothing delivered twice")
            await socket.close()
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aReaderThatStopsReadingHoldsUpNobodyAndLosesNothing() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            // ~26 MB of queued mail for bob: far more than the socket buffers between the relay and a stalled reader.
            let large = String(repeating: "x", count: 48_000)
            var queued: [Envelope] = []
            for number in 0..<400 {
                let envelope = try seal("\(number) \(large)", from: alice, to: bob)
                #expect(try await client.send(envelope, session: aliceSession).status == .accepted)
                queued.append(envelope)
            }
            let stalled = try StalledSocket(port: port, session: bobSession)
            try await Task.sleep(for: .milliseconds(500))
            let metrics = String(buffer: try await client.request("/metrics", method: .get).body)
            #expect(metrics.metric("wots_websocket_connections") == 1, "the stalled reader is connected")
            #expect(metrics.metric("wots_messages_delivered_total") < 400, "the relay waits for the reader")

            let reader = try await TestSocket.connect(port: port, headerSession: aliceSession)
            #expect(await reader.next() == .ready(token: alice.token))
            let live = try seal("the relay is not stuck", from: bob, to: alice)
            let start = ContinuousClock.now
            #expect(try await client.send(live, session: bobSession).status == .accepted)
            #expect(await reader.next(timeout: .seconds(2))?.deliveredMessage?.envelope == live)
            #expect(ContinuousClock.now - start < .seconds(1), "another socket waited on the stalled one")
            await reader.close()

            stalled.close()
            let again = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await again.next() == .ready(token: bob.token))
            var delivered: [Envelope] = []
            while delivered.count < queued.count,
                let envelope = await again.next(timeout: .seconds(10))?.deliveredMessage?.envelope
            {
                delivered.append(envelope)
            }
            #expect(delivered == queued, "unacknowledged mail must all arrive again, in order")
            await again.close()
        }
    }

    @Test func aSocketWithoutAValidSessionIsRefusedAndClosed() async throws {
        try await self.live { _, port, _, _ in
            let socket = try await TestSocket.connect(port: port)
            try await socket.send(.auth(session: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
            guard case .error(_, let code, _) = await socket.next() else {
                Issue.record("no error frame")
                return
            }
            #expect(code == .invalidSession)
            #expect(await socket.next() == nil)
            await socket.close()
        }
    }

    @Test func aSocketThatNeverAuthenticatesIsClosed() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.authenticationTimeout = .milliseconds(300)
        try await self.live(configuration: configuration) { _, port, _, _ in
            let socket = try await TestSocket.connect(port: port)
            #expect(await socket.next(timeout: .seconds(3)) == nil)
            await socket.close()
        }
    }

    @Test func directoryChangesArriveWhenRequested() async throws {
        try await self.live { client, port, aliceSession, _ in
            let socket = try await TestSocket.connect(port: port, headerSession: aliceSession)
            #expect(await socket.next() == .ready(token: alice.token))
            try await socket.send(.subscribeDirectory(true))
            try await Task.sleep(for: .milliseconds(100))
            try await client.register(TestIdentities.carol)
            #expect(await socket.next() == .directory(change: "registered", nickname: TestIdentities.carol.nickname))
            await socket.close()
        }
    }

    @Test func moreThanABatchOfQueuedMailArrivesInOrderAndAnIdleSocketStillGetsLiveMail() async throws {
        try await self.live { client, port, aliceSession, bobSession in
            var queued: [Envelope] = []
            for index in 0..<105 {
                let envelope = try seal("queued \(index)", from: alice, to: bob)
                _ = try await client.send(envelope, session: aliceSession)
                queued.append(envelope)
            }
            let socket = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await socket.next() == .ready(token: bob.token))
            for envelope in queued {
                #expect(await socket.next()?.deliveredMessage?.envelope == envelope)
            }
            try await Task.sleep(for: .seconds(1))
            let live = try seal("after a quiet second", from: alice, to: bob)
            _ = try await client.send(live, session: aliceSession)
            #expect(await socket.next()?.deliveredMessage?.envelope == live)
            await socket.close()
        }
    }

    @Test func mailTheBusNeverAnnouncedArrivesWithTheResync() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.resyncInterval = .milliseconds(300)
        let storage = RelayStorage.inMemory()
        try await self.live(configuration: configuration, storage: storage) { _, port, _, bobSession in
            let socket = try await TestSocket.connect(port: port, headerSession: bobSession)
            #expect(await socket.next() == .ready(token: bob.token))
            let unannounced = try seal("appended behind the relay's back", from: alice, to: bob)
            _ = try await storage.mailboxes.append(unannounced, receivedAt: Date(), mailboxCapacity: 100)
            #expect(await socket.next(timeout: .seconds(3))?.deliveredMessage?.envelope == unannounced)
            await socket.close()
        }
    }

    @Test func directoryChangesStopWhenUnsubscribedAndResumeWhenSubscribedAgain() async throws {
        try await self.live { client, port, aliceSession, _ in
            let socket = try await TestSocket.connect(port: port, headerSession: aliceSession)
            #expect(await socket.next() == .ready(token: alice.token))
            try await socket.send(.subscribeDirectory(false))
            try await socket.send(.subscribeDirectory(true))
            try await socket.send(.subscribeDirectory(false))
            try await Task.sleep(for: .milliseconds(100))
            try await client.register(TestIdentities.carol)
            try await socket.send(.subscribeDirectory(true))
            try await Task.sleep(for: .milliseconds(100))
            try await client.register(TestIdentities.mallory)
            #expect(await socket.next() == .directory(change: "registered", nickname: TestIdentities.mallory.nickname))
            await socket.close()
        }
    }
}

extension String {
    /// The value of a Prometheus sample without labels in this exposition text, 0 when absent.
    fileprivate func metric(_ name: String) -> Double {
        for line in self.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? .nan
        }
        return 0
    }
}
