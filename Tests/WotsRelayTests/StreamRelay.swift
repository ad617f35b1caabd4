import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsRelay
import WotsTesting

/// A live relay on port 0 with alice, bob and carol registered and logged in, for WebSocket tests.
struct StreamRelay: Sendable {
    let client: any TestClientProtocol
    let port: Int
    let aliceSession: String
    let bobSession: String
    let carolSession: String
    let relay: Relay

    static func run(
        configuration: RelayConfiguration = RelayHarness.testConfiguration,
        storage: RelayStorage = .inMemory(),
        clock: ManualClock? = nil,
        _ body: @Sendable (StreamRelay) async throws -> Void
    ) async throws {
        let harness = try await RelayHarness.make(
            configuration: configuration,
            storage: storage,
            clock: clock.map { RelayClock($0) } ?? .continuous
        )
        try await harness.relay.buildApplication().test(.live) { client in
            for user in [TestIdentities.alice, TestIdentities.bob, TestIdentities.carol] {
                try await client.register(user)
            }
            try await body(
                StreamRelay(
                    client: client,
                    port: try #require(client.port),
                    aliceSession: try await client.login(TestIdentities.alice),
                    bobSession: try await client.login(TestIdentities.bob),
                    carolSession: try await client.login(TestIdentities.carol),
                    relay: harness.relay
                )
            )
        }
    }

    func session(of user: TestIdentity) -> String {
        switch user.token {
        case TestIdentities.alice.token: self.aliceSession
        case TestIdentities.bob.token: self.bobSession
        default: self.carolSession
        }
    }

    /// A socket authenticated by header, after its `ready` frame; with `groups`, one that carries group slots too.
    func connect(as user: TestIdentity, groups: Bool = false) async throws -> TestSocket {
        let socket = try await TestSocket.connect(
            port: self.port,
            headerSession: self.session(of: user),
            query: groups ? "?groups=true" : ""
        )
        let ready = await socket.next()
        #expect(ready == .frame(.ready(ref: nil, token: user.token)))
        return socket
    }

    /// What `/metrics` on the administration address serves.
    func metrics() async throws -> String {
        await self.relay.scrapeMetrics()
    }

    /// Polls `/metrics` until the sample satisfies `condition`, for at most `timeout`; whether it did.
    func waitForMetric(
        _ name: String,
        timeout: Duration = .seconds(10),
        _ condition: (Double) -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(try await self.metrics().metric(name)) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

extension TestSocket {
    /// Advances `clock` a step at a time, each followed by a short real wait for a frame, until an event satisfies
    /// `done` (returned) or a bounded number of steps passed (`.timedOut`). Timers on the manual clock fire only when
    /// advanced, so this never waits out a real interval.
    func next(
        advancing clock: ManualClock,
        by step: Duration,
        steps: Int = 300,
        until done: (SocketEvent) -> Bool
    ) async -> SocketEvent {
        for _ in 0..<steps {
            clock.advance(by: step)
            let event = await self.next(timeout: .milliseconds(30))
            if done(event) { return event }
        }
        return .timedOut
    }
}
