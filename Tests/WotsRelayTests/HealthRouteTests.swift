import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

/// `/readyz` says whether the relay can serve now; `/healthz` only that the process answers.
@Suite struct HealthRouteTests {
    @Test func aKnownOutageIsNotReadyAtOnceWithoutWaitingForAProbe() async throws {
        var storage = RelayStorage.inMemory()
        let probes = ProbeCount()
        storage.probe = { probes.add() }
        storage.health.record(.failure(WotsError(.storageUnavailable, "the database went away")))
        let harness = try await RelayHarness.make(storage: storage)
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorCode == .notReady)
            #expect(response.errorMessage?.contains("the database went away") == true)
            #expect(response.headers[.retryAfter] != nil)
            #expect(probes.count == 0)
            #expect(try await client.request("/healthz", method: .get).status == .ok)
        }
    }

    @Test func readinessFollowsTheProbeBothWays() async throws {
        var storage = RelayStorage.inMemory()
        let failing = FailingSwitch()
        let health = storage.health
        storage.probe = {
            let outcome: Result<Void, any Error> =
                failing.isOn ? .failure(WotsError(.storageFull, "below the reserve")) : .success(())
            health.recordProbe(outcome)
            try outcome.get()
        }
        let harness = try await RelayHarness.make(storage: storage)
        try await harness.routerApplication.test(.router) { client in
            #expect(try await client.request("/readyz", method: .get).status == .ok)
            failing.isOn = true
            let short = try await client.request("/readyz", method: .get)
            #expect(short.status == .serviceUnavailable)
            #expect(short.errorCode == .notReady)
            failing.isOn = false
            #expect(try await client.request("/readyz", method: .get).status == .ok, "ready again once space is back")
        }
    }

    @Test func aStorageFaultIsA503WithRetryAfterAndTheSameCodeOnBothTransports() async throws {
        let mailboxes = FailingMailboxes()
        var storage = RelayStorage.inMemory()
        storage.mailboxes = mailboxes
        try await StreamRelay.run(storage: storage) { relay in
            let envelope = try seal("during the outage", from: TestIdentities.alice, to: TestIdentities.bob)
            mailboxes.failing.isOn = true
            let refused = try await relay.client.send(envelope, session: relay.aliceSession)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.errorCode == .storageUnavailable)
            #expect(refused.headers[.retryAfter] != nil)

            let socket = try await relay.connect(as: TestIdentities.alice)
            try await socket.send(.send(envelope), ref: "outage")
            #expect(
                await socket.next().frame?.errorParts
                    == ErrorParts(ref: "outage", id: envelope.header.messageID, code: .storageUnavailable)
            )
            mailboxes.failing.isOn = false
            #expect(try await relay.client.send(envelope, session: relay.aliceSession).status == .accepted)
            await socket.close()
        }
    }
}

final class FailingSwitch: Sendable {
    private let state = Mutex(false)
    var isOn: Bool {
        get { self.state.withLock { $0 } }
        set { self.state.withLock { $0 = newValue } }
    }
}

final class ProbeCount: Sendable {
    private let state = Mutex(0)
    func add() { self.state.withLock { $0 += 1 } }
    var count: Int { self.state.withLock { $0 } }
}

/// In-memory mailboxes whose appends fail like a lost database while `failing` is on.
final class FailingMailboxes: ForwardingMailboxRepository {
    let failing = FailingSwitch()
    let base: any MailboxRepository = InMemoryMailboxRepository()

    private func check() throws {
        if self.failing.isOn { throw WotsError(.storageUnavailable, "the test's database is down") }
    }

    func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int) async throws
        -> MailboxReceipt
    {
        try self.check()
        return try await self.base.append(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }

    func append(batch envelopes: [Envelope], receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int) async throws
        -> [Result<MailboxReceipt, WotsError>]
    {
        try self.check()
        return try await self.base.append(
            batch: envelopes,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }
}
