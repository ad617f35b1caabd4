import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsRelay
import WotsTesting

/// docs/OPERATIONS.md's table of metrics names every metric the relay exports.
@Suite struct MetricsDocumentationTests {
    @Test func everyExportedMetricIsInTheOperatorsTable() async throws {
        let exported = try await RelayHarness.withSQLite { harness, _ in
            try await harness.routerApplication.test(.router) { client in
                try await client.register(TestIdentities.alice)
                try await client.register(TestIdentities.bob)
                let session = try await client.login(TestIdentities.alice)
                let envelope = try seal("hello", from: TestIdentities.alice, to: TestIdentities.bob)
                #expect(try await client.send(envelope, session: session).status == .accepted)
                return await harness.relay.scrapeMetrics()
            }
        }
        let names = exported.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count == 4 && words[1] == "TYPE" ? String(words[2]) : nil
        }
        #expect(names.contains("wots_message_key_filter_keys"), "the scrape saw the SQLite repository's metrics")
        let operations = try String(
            contentsOf: ErrorCodeDocumentationTests.packageRoot.appendingPathComponent("docs/OPERATIONS.md"),
            encoding: .utf8
        )
        let table = operations.split(separator: "\n").filter { $0.hasPrefix("| `wots_") }.joined(separator: "\n")
        for name in names {
            #expect(table.contains("`\(name)`") || table.contains("`\(name){"), "\(name) is not in docs/OPERATIONS.md")
        }
    }
}
