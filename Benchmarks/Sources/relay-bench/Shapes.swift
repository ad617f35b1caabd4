import ArgumentParser
import Foundation
import NIOCore

/// `relay-bench shapes`: durable store, drain, then online at saturation and at each of a list of fixed offered rates,
/// then durable store over the stream.
struct Shapes: AsyncParsableCommand, BenchCommand {
    static let configuration = CommandConfiguration(abstract: "Durable store, drain and online shapes.")

    @OptionGroup var common: Common
    @Option(help: "Senders, and as many recipients") var users = 50
    @Option(help: "Messages per sender for the store shape") var storePerSender = 400
    @Option(help: "Concurrent POSTs per sender in the store shape") var storeConcurrency = 1
    @Option(
        help: "Messages per sender for the store shape over the stream (send frames, `window` unanswered; 0: skip it)"
    )
    var streamStorePerSender = 400
    @Option(help: "Messages per sender for the online saturation shape") var onlinePerSender = 300
    @Option(help: "Unanswered send frames per sender at saturation") var window = 8
    @Option(
        help: """
            How recipients acknowledge: `coalesced` (as wots clients do: one ack frame unanswered, what arrives \
            meanwhile goes together when it is answered) or `each` (one ack frame per message, replies not waited for)
            """
    )
    var acks = StreamConnection.AckPolicy.coalesced
    @Option(
        help: "Offered rates for the latency shape, comma-separated msg/s; `saturation`: the saturation shape's rate"
    )
    var rates = "1000,2500,5000,saturation"
    @Option(help: "Most msg/s `saturation` may stand for: as many messages are sealed for it in advance")
    var saturationCeiling = 15000
    @Option(help: "Seconds at the offered rate") var rateSeconds = 5.0
    @Option(help: "Plaintext bytes per message (padded to 256; the envelope is then ~1 KiB binary)") var plaintext = 400
    @Option(help: "Upper bound in seconds for each shape") var timeout = 60.0

    func run() async throws { try await self.measure() }

    func measure() async throws {
        let api = RelayAPI(base: self.common.url, connections: max(64, self.users * self.storeConcurrency))
        let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)

        let clock = now()
        let senders = try await api.prepareUsers(count: self.users, role: "s", run: run)
        let recipients = try await api.prepareUsers(count: self.users, role: "r", run: run)
        say(
            "registered and logged in \(self.users * 2) users in \(String(format: "%.1f", Double(now() - clock) / 1e9)) s"
        )
        let offered = try self.offeredRates()
        let sealed = try await self.seal(senders: senders, recipients: recipients, offered: offered)
        let collector = Collector()

        let stored = try await self.measureStore(sealed.map { $0[0] }, senders: senders, api: api)
        let recipientConnections = try await self.measureDrain(
            stored: stored,
            recipients: recipients,
            api: api,
            collector: collector
        )
        let senderConnections = try await StreamConnection.openAll(
            url: api.wsURL,
            sessions: senders.map(\.session),
            role: .sender,
            collector: collector
        )
        let saturation = try await self.measureSaturation(
            sealed.map { $0[2] },
            senders: senderConnections,
            recipients: recipientConnections,
            collector: collector
        )
        for (index, rate) in offered.enumerated() {
            let msgsPerSecond = rate ?? Int(saturation.rounded())
            let perSender = Double(msgsPerSecond) / Double(self.users)
            let count = Int((perSender * self.rateSeconds).rounded(.up))
            try await self.measureOfferedRate(
                sealed.map { Array($0[3 + index].prefix(count)) },
                rate: msgsPerSecond,
                isSaturation: rate == nil,
                senders: senderConnections,
                recipients: recipientConnections,
                ratePerSender: perSender,
                collector: collector
            )
            for connection in recipientConnections { try await connection.settleAcks() }
        }
        // Last, so that every shape before it runs on the database it ran on before this one was added.
        await StreamConnection.closeAll(recipientConnections)
        _ = try await self.measureStreamStore(sealed.map { $0[1] }, senders: senderConnections, collector: collector)
        await StreamConnection.closeAll(senderConnections)
        await api.shutdown()
    }

    /// The offered rates in order; nil stands for the saturation rate, known only once measured.
    private func offeredRates() throws -> [Int?] {
        try self.rates.split(separator: ",").map { word in
            let text = String(word.filter { !$0.isWhitespace })
            if text == "saturation" { return nil }
            guard let rate = Int(text), rate > 0 else {
                throw ValidationError("--rates: \"\(text)\" is neither msg/s nor `saturation`")
            }
            return rate
        }
    }

    /// Seals every shape's messages before any clock starts: per sender, one list each for store over HTTP, store over
    /// the stream, saturation, then each offered rate (for `saturation`, enough for the ceiling).
    private func seal(senders: [BenchUser], recipients: [BenchUser], offered: [Int?]) async throws
        -> [[[SealedMessage]]]
    {
        let rateCounts = offered.map { rate in
            Int((Double(rate ?? self.saturationCeiling) / Double(self.users) * self.rateSeconds).rounded(.up))
        }
        let clock = now()
        let sealed = try await SealedMessage.sealAll(
            senders: senders,
            recipients: recipients,
            counts: [self.storePerSender, self.streamStorePerSender, self.onlinePerSender] + rateCounts,
            plaintextSize: self.plaintext
        )
        let total = sealed.map { $0.reduce(0) { $0 + $1.count } }.reduce(0, +)
        // Any shape may have no messages (`--store-per-sender 0`): the size is read from the first that has one.
        let envelopeBytes = sealed.lazy.flatMap { $0 }.first { !$0.isEmpty }?.first?.body.readableBytes ?? 0
        say(
            "sealed \(total) envelopes in \(String(format: "%.1f", Double(now() - clock) / 1e9)) s "
                + "(\(envelopeBytes) bytes of JSON each, plaintext \(self.plaintext) bytes)"
        )
        result("\(self.common.label).envelope_json_bytes", "\(envelopeBytes)")
        return sealed
    }

    /// Shape 1: durable store, recipients offline; counts only 202s. Returns how many were stored.
    private func measureStore(_ storeSet: [[SealedMessage]], senders: [BenchUser], api: RelayAPI) async throws -> Int {
        let label = self.common.label
        // Nothing to store (`--store-per-sender 0`): no rate or CPU figure is made of an empty shape.
        guard storeSet.contains(where: { !$0.isEmpty }) else { return 0 }
        let counts = Locked((accepted: 0, other: [UInt: Int]()))
        var lanes: [(PostConnection, String, [ByteBuffer])] = []
        for (index, messages) in storeSet.enumerated() {
            for lane in 0..<self.storeConcurrency {
                let mine = stride(from: lane, to: messages.count, by: self.storeConcurrency).map { messages[$0].body }
                lanes.append((try await PostConnection.open(baseURL: api.base), senders[index].session, mine))
            }
        }
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let deadline = start + UInt64(self.timeout * 1e9)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (connection, session, bodies) in lanes {
                group.addTask {
                    let statuses = try await connection.post(
                        bodies,
                        to: "/v1/messages",
                        session: session,
                        until: deadline
                    )
                    counts.withLock {
                        for (status, count) in statuses {
                            if status == 202 { $0.accepted += count } else { $0.other[status, default: 0] += count }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = Double(now() - start) / 1e9
        for (connection, _, _) in lanes { await connection.close() }
        let (accepted, other) = counts.withLock { ($0.accepted, $0.other) }
        say(
            "store: \(accepted) accepted (202) of \(storeSet.reduce(0) { $0 + $1.count }) in "
                + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(accepted) / elapsed)) msg/s"
                + (other.isEmpty ? "" : ", other statuses \(other)") + cpu.summary
        )
        result("\(label).store_msgs", "\(accepted)")
        result("\(label).store_rate", Double(accepted) / elapsed)
        if let busy = cpu.relay.coresBusy() { result("\(label).store_relay_cores", busy, digits: 2) }
        return accepted
    }

    /// Shape 2: drain; recipients connect, receive and ack everything stored. Returns their connections, still open.
    /// The time runs from before the first connection to the last message's arrival.
    private func measureDrain(
        stored: Int,
        recipients: [BenchUser],
        api: RelayAPI,
        collector: Collector
    ) async throws -> [StreamConnection] {
        let label = self.common.label
        collector.expectDelivered(stored)
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let connections = try await StreamConnection.openAll(
            url: api.wsURL,
            sessions: recipients.map(\.session),
            role: .recipient,
            collector: collector,
            acks: self.acks
        )
        // With nothing stored (`--store-per-sender 0`) there is nothing to drain: the recipients stay connected.
        guard stored > 0 else { return connections }
        let complete = try await waitUntil(seconds: self.timeout) { collector.delivered >= stored }
        let deliveredElapsed = Double((collector.deliveredGoalTime ?? now()) - start) / 1e9
        // Drained means deleted: the relay answers each `ack` once its deletions are written.
        for connection in connections { try await connection.settleAcks() }
        let elapsed = Double(now() - start) / 1e9
        let delivered = collector.delivered
        say(
            "drain: \(delivered) of \(stored) delivered in \(String(format: "%.2f", deliveredElapsed)) s = "
                + "\(Int(Double(delivered) / deliveredElapsed)) msg/s, every ack written after "
                + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(delivered) / elapsed)) msg/s"
                + (complete ? "" : " (TIMED OUT)") + cpu.summary
        )
        result("\(label).drain_msgs", "\(delivered)")
        result("\(label).drain_rate", Double(delivered) / elapsed)
        result("\(label).drain_delivered_rate", Double(delivered) / deliveredElapsed)
        if let busy = cpu.relay.coresBusy() { result("\(label).drain_relay_cores", busy, digits: 2) }
        return connections
    }
}

extension StreamConnection.AckPolicy: ExpressibleByArgument {}
