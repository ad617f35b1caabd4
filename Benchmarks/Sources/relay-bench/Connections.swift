import ArgumentParser
import Foundation

/// `relay-bench connections`: idle authenticated WebSockets in steps, the relay's RSS per connection, and one
/// message through at the top.
struct Connections: AsyncParsableCommand, BenchCommand {
    static let configuration = CommandConfiguration(
        abstract: "Idle authenticated WebSockets in steps; RSS per connection."
    )

    @OptionGroup var common: Common
    @Option(help: "Connection counts to reach, comma-separated") var steps = "1000,5000,10000,15000,19500"
    @Option(help: "Users whose sessions the idle connections share") var users = 100
    @Option(help: "Connections opened in parallel") var parallel = 128
    @Option(help: "Upper bound in seconds for the whole ceiling run") var timeout = 240.0

    func run() async throws { try await self.measure() }

    func measure() async throws {
        let api = RelayAPI(base: self.common.url, connections: 16)
        let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let users = try await api.prepareUsers(count: self.users, role: "i", run: run)
        let probes = try await api.prepareUsers(count: 2, role: "p", run: run)
        let sealed = try SealedMessage.probe(from: probes[0], to: probes[1])
        let collector = Collector()
        // The probe recipient's own connection, counted in every step.
        var all = try await StreamConnection.openAll(
            url: api.wsURL,
            sessions: [probes[1].session],
            role: .recipient,
            collector: collector
        )
        try await Task.sleep(for: .seconds(1))
        try await self.climb(&all, sessions: users.map(\.session), url: api.wsURL, collector: collector)
        // A message still gets through at the top.
        let start = now()
        let (status, _) = try await api.post("/v1/messages", body: sealed.body, session: probes[0].session)
        let through = try await waitUntil(seconds: 10) { collector.delivered >= 1 }
        let millis = Double(now() - start) / 1e6
        say(
            "probe at \(all.count) connections: POST \(status), "
                + (through
                    ? String(format: "delivered over WebSocket after %.1f ms", millis) : "NOT delivered within 10 s")
        )
        result("\(self.common.label).conn_probe_delivered", through ? "yes" : "no")
        result("\(self.common.label).conn_probe_ms", millis, digits: 1)
        await StreamConnection.closeAll(all)
        await api.shutdown()
    }

    /// Opens idle connections up to each step in turn, reporting the relay's RSS at each, until a step fails or the
    /// time is up.
    private func climb(
        _ all: inout [StreamConnection],
        sessions: [String],
        url: String,
        collector: Collector
    ) async throws {
        let label = self.common.label
        let stepList = self.steps.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let pid = self.common.pid
        let baseline = pid.flatMap(ProcessStats.rssKiB)
        if let baseline { say("relay RSS with 1 connection: \(baseline) KiB") }
        let deadline = now() + UInt64(self.timeout * 1e9)
        var reached = all.count
        for step in stepList where now() < deadline {
            let missing = step - all.count
            guard missing > 0 else { continue }
            let start = now()
            do {
                let count = all.count
                let more = try await StreamConnection.openAll(
                    url: url,
                    sessions: (0..<missing).map { sessions[(count + $0) % sessions.count] },
                    role: .idle,
                    collector: collector,
                    parallel: self.parallel
                )
                all.append(contentsOf: more)
            } catch {
                say("connections: step \(step) failed after \(all.count) open: \(error)")
                result("\(label).conn_failed_at", "\(step)")
                result(
                    "\(label).conn_error",
                    "\(String(describing: error).prefix(120))".replacingOccurrences(of: " ", with: "_")
                )
                break
            }
            reached = all.count
            try await Task.sleep(for: .seconds(2))
            let rss = pid.flatMap(ProcessStats.rssKiB)
            let perConnection = rss.flatMap { rss in baseline.map { Double(rss - $0) / Double(all.count - 1) } }
            say(
                "connections: \(all.count) open (step took \(String(format: "%.1f", Double(now() - start) / 1e9)) s)"
                    + (rss.map { ", relay RSS \($0) KiB" } ?? "")
                    + (perConnection.map { String(format: ", %.1f KiB per connection above baseline", $0) } ?? "")
            )
            result("\(label).conn_\(step)_rss_kib", "\(rss ?? -1)")
            if let perConnection { result("\(label).conn_\(step)_kib_per_conn", perConnection, digits: 1) }
        }
        result("\(label).conn_reached", "\(reached)")
    }
}
