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
        try await LiveRelay.run(sessionLifetime: .seconds(2)) { relay in
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
            let renewed = try await Self.waitUntil(within: .seconds(60)) {
                statuses.withLock { seen in
                    guard let closed = seen.firstIndex(where: { if case .disconnected = $0 { true } else { false } })
                    else { return false }
                    return seen.first == .connected && seen[closed...].contains(.connected)
                }
            }
            #expect(renewed, "\(statuses.withLock { $0 })")
            let reasons = statuses.withLock { $0 }.compactMap { status -> String? in
                if case .disconnected(let reason, _) = status { reason } else { nil }
            }
            #expect(reasons.first?.contains("invalid_session") == true, "\(reasons)")

            _ = try await alice.send("after the new login", to: TestIdentities.bob.nickname)
            #expect(await firstValue(of: messages, within: .seconds(30)) == "after the new login")
        }
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
