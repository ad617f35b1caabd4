import Foundation
import Synchronization
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// The relay closes a stream when its session ends (schema/stream.md, close 1008 with `invalid_session`); a
/// listening client logs in again and goes on receiving.
@Suite struct SessionRenewalTests {
    @Test func aListenerWhoseSessionExpiredLogsInAgainAndKeepsReceiving() async throws {
        try await LiveRelay.run(sessionLifetime: .seconds(4)) { relay in
            let alice = try await relay.account(TestIdentities.alice)
            let bob = try await relay.account(TestIdentities.bob)
            let statuses = Mutex<[StreamClient.Status]>([])
            let (messages, shown) = AsyncStream.makeStream(of: String.self)
            let listening = Task {
                try await bob.listen(
                    status: { status in statuses.withLock { $0.append(status) } },
                    show: { shown.yield($0.text ?? "") }
                )
            }
            defer { listening.cancel() }
            // connected, closed by the relay when the session expired, connected again with a new login (a slow
            // machine may also see its first session expire before the first connection: that is fine too).
            let renewed = try await Self.waitUntil(within: .seconds(60)) {
                Self.renewed(statuses.withLock { $0 })
            }
            #expect(renewed, "\(statuses.withLock { $0 })")

            _ = try await alice.send("after the new login", to: TestIdentities.bob.nickname)
            #expect(await firstValue(of: messages, within: .seconds(30)) == "after the new login")
        }
    }

    /// Whether `statuses` hold a live stream that the relay closed for its expired session, then a live one again.
    static func renewed(_ statuses: [StreamClient.Status]) -> Bool {
        guard let live = statuses.firstIndex(of: .connected),
            let closed = statuses[live...].firstIndex(where: { status in
                if case .disconnected(let reason, _) = status { reason.contains("invalid_session") } else { false }
            })
        else { return false }
        return statuses[closed...].contains(.connected)
    }

    /// Checks `condition` every 20 ms until it holds or `timeout` passes; whether it held.
    static func waitUntil(within timeout: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
