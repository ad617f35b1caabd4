import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@testable import WotsStorageSQLite

/// `/metrics` shows what the SQLite key filter holds and how many duplicate lookups it spared (OPERATIONS.md,
/// "Memory"); a storage without a filter exports none of it.
@Suite struct KeyFilterMetricsTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func newMessagesAreSparedTheLookupAndARetryIsLookedFor() async throws {
        try await RelayHarness.withSQLite { harness, database in
            try await harness.routerApplication.test(.router) { client in
                try await client.register(alice)
                try await client.register(bob)
                let session = try await client.login(alice)
                await database.mailboxPipeline.keyScanEnded()
                let before = await harness.relay.scrapeMetrics()
                #expect(before.contains("wots_message_key_filter_keys 0"))
                #expect(before.contains("wots_message_key_filter_bytes 1310720"), "sized for 1,048,576 keys at 10 bits")
                let envelopes = try (0..<3).map { try seal("note \($0)", from: alice, to: bob) }
                for envelope in envelopes {
                    #expect(try await client.send(envelope, session: session).status == .accepted)
                }
                let retry = try await client.send(envelopes[0], session: session)
                #expect(retry.status == .accepted)
                let after = await harness.relay.scrapeMetrics()
                #expect(after.contains("wots_message_key_filter_keys 3"))
                #expect(after.contains(#"wots_message_key_lookups_total{result="spared"} 3"#))
                #expect(after.contains(#"wots_message_key_lookups_total{result="made"} 1"#), "the retry was looked for")
                let again = await harness.relay.scrapeMetrics()
                #expect(again.contains(#"wots_message_key_lookups_total{result="spared"} 3"#), "a scrape adds nothing")
            }
        }
    }

    @Test func aStorageWithoutAKeyFilterExportsNoneOfItsMetrics() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(bob)
            let session = try await client.login(alice)
            _ = try await client.send(try seal("hello", from: alice, to: bob), session: session)
            let metrics = await harness.relay.scrapeMetrics()
            #expect(metrics.contains("wots_mailbox_messages_waiting 1"))
            #expect(!metrics.contains("wots_message_key"))
        }
    }
}
