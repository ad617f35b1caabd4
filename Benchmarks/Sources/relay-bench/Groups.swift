import ArgumentParser
import Foundation
import NIOCore
import WotsCore
import WotsCrypto

/// `relay-bench groups`: the sender's cost of sealing and the relay's throughput for group messages of 10, 100 and
/// 256 members, beside 1:1 messages in the same run. Two phases per size, so the load generator's own work does not
/// share the machine with the relay's store: the senders post over HTTP (one request at a time each) while the
/// members are offline, then the members connect on streams opened with `?groups=true` and acknowledge everything.
struct Groups: AsyncParsableCommand, BenchCommand {
    static let configuration = CommandConfiguration(
        abstract: "Group messages: seal cost, accepted msg/s and delivered slots/s at several group sizes, beside 1:1."
    )

    @OptionGroup var common: Common
    @Option(help: "Group sizes (members besides the sender), comma-separated") var sizes = "10,100,256"
    @Option(help: "Senders posting at once, each one request at a time") var senders = 4
    @Option(help: "Messages per group size (and for 1:1), split among the senders") var messages = 200
    @Option(help: "Plaintext bytes per message") var plaintext = 400
    @Option(help: "Upper bound in seconds for each size") var timeout = 120.0

    func run() async throws { try await self.measure() }

    func measure() async throws {
        let sizes = try self.sizes.split(separator: ",").map { text -> Int in
            guard let size = Int(text.trimmingCharacters(in: .whitespaces)), (1...256).contains(size) else {
                throw ValidationError("--sizes takes group sizes from 1 to 256, got \(text)")
            }
            return size
        }
        let api = RelayAPI(base: self.common.url, connections: max(64, self.senders * 2))
        let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let members = try await api.prepareUsers(count: sizes.max() ?? 1, role: "m", run: run)
        let senders = try await api.prepareUsers(count: self.senders, role: "g", run: run)
        say("registered \(members.count) members and \(senders.count) senders")
        let drain = Drain(url: api.wsURL + "?groups=true")
        try await self.measureDirect(senders: senders, to: members[0], api: api, drain: drain)
        for size in sizes {
            try await self.measureGroup(
                size: size,
                senders: senders,
                members: Array(members.prefix(size)),
                api: api,
                drain: drain
            )
        }
        await api.shutdown()
    }

    /// The same number of 1:1 messages, each sender to the first member, for the row beside the group sizes.
    private func measureDirect(senders: [BenchUser], to recipient: BenchUser, api: RelayAPI, drain: Drain)
        async throws
    {
        let perSender = self.messages / senders.count
        let start = now()
        let bodies = try senders.map { sender in
            try (0..<perSender).map { _ in
                let envelope = try Envelope.seal(
                    plaintext: SecureRandom.bytes(self.plaintext),
                    from: sender.token,
                    identity: sender.identity,
                    to: recipient.token,
                    recipientKeys: recipient.identity.publicKeys
                )
                return ByteBuffer(bytes: try WireCoding.makeEncoder().encode(envelope))
            }
        }
        let sealMicroseconds = Double(now() - start) / 1e3 / Double(perSender * senders.count)
        try await self.post(
            label: "1:1",
            path: "/v1/messages",
            bodies: bodies,
            senders: senders,
            recipients: [recipient],
            sealMicroseconds: sealMicroseconds,
            api: api,
            drain: drain
        )
    }

    private func measureGroup(
        size: Int,
        senders: [BenchUser],
        members: [BenchUser],
        api: RelayAPI,
        drain: Drain
    ) async throws {
        let perSender = self.messages / senders.count
        let recipients = members.map { GroupRecipientKeys(token: $0.token, publicKeys: $0.identity.publicKeys) }
        let groupID = try GroupID(bytes: SecureRandom.bytes(16))
        let stateHash = SecureRandom.bytes(32)
        let start = now()
        let bodies = try senders.map { sender in
            try (0..<perSender).map { index in
                let sealed = try GroupEnvelope.seal(
                    plaintext: SecureRandom.bytes(self.plaintext),
                    from: sender.token,
                    identity: sender.identity,
                    groupID: groupID,
                    membershipVersion: 1,
                    membershipStateHash: stateHash,
                    senderSequence: UInt64(index + 1),
                    to: recipients
                )
                let request = GroupSendRequest(body: sealed.envelope, slots: sealed.slots)
                return ByteBuffer(bytes: try WireCoding.makeEncoder().encode(request))
            }
        }
        let sealMicroseconds = Double(now() - start) / 1e3 / Double(perSender * senders.count)
        try await self.post(
            label: "\(size)",
            path: "/v1/group-messages",
            bodies: bodies,
            senders: senders,
            recipients: members,
            sealMicroseconds: sealMicroseconds,
            api: api,
            drain: drain
        )
    }

    /// Posts every body (each sender its own list, one request at a time) with the recipients offline, then
    /// connects them and waits until every slot arrived.
    private func post(
        label: String,
        path: String,
        bodies: [[ByteBuffer]],
        senders: [BenchUser],
        recipients: [BenchUser],
        sealMicroseconds: Double,
        api: RelayAPI,
        drain: Drain
    ) async throws {
        let count = bodies.reduce(0) { $0 + $1.count }
        let slots = count * recipients.count
        let storeCPU = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (sender, list) in zip(senders, bodies) {
                group.addTask {
                    for body in list {
                        let (status, answer) = try await api.post(path, body: body, session: sender.session)
                        guard status == 202 else {
                            throw BenchError("\(path): HTTP \(status) \(String(buffer: answer).prefix(200))")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let posted = Double(now() - start) / 1e9
        let storeCores = storeCPU.relay.coresBusy()
        let drainCPU = PhaseCPU(relayPID: self.common.pid)
        let drained = try await drain.run(recipients, expecting: slots, timeout: self.timeout)
        let drainCores = drainCPU.relay.coresBusy()
        let key = "\(self.common.label)_group_\(label == "1:1" ? "direct" : label)"
        result("\(key)_seal_us", sealMicroseconds, digits: 0)
        result("\(key)_accepted_per_s", Double(count) / posted, digits: 0)
        result("\(key)_slots_per_s", Double(slots) / drained, digits: 0)
        if let storeCores, let drainCores {
            result("\(key)_store_cpu_us_per_message", storeCores * posted * 1e6 / Double(count), digits: 0)
            result("\(key)_drain_cpu_us_per_slot", drainCores * drained * 1e6 / Double(slots), digits: 0)
        }
        say(
            "\(label) members: sealing \(String(format: "%.0f", sealMicroseconds)) µs/message; "
                + "\(count) messages stored at \(String(format: "%.0f", Double(count) / posted)) msg/s"
                + storeCPU.summary + "; \(slots) slots drained at \(String(format: "%.0f", Double(slots) / drained))"
                + " slots/s" + drainCPU.summary
        )
    }
}

/// Connects recipients on `?groups=true` streams, waits until they acknowledged what was expected, disconnects.
struct Drain {
    let url: String

    /// - Returns: seconds from the first connection until the last expected item arrived.
    func run(_ recipients: [BenchUser], expecting count: Int, timeout: Double) async throws -> Double {
        let collector = Collector()
        collector.expectDelivered(count)
        let start = now()
        let streams = try await StreamConnection.openAll(
            url: self.url,
            sessions: recipients.map(\.session),
            role: .recipient,
            collector: collector
        )
        let arrived = try await waitUntil(seconds: timeout) { collector.delivered >= count }
        let elapsed = Double((collector.deliveredGoalTime ?? now()) - start) / 1e9
        for connection in streams { try await connection.flushAcks() }
        await StreamConnection.closeAll(streams)
        guard arrived else { throw BenchError("\(collector.delivered) of \(count) slots arrived within \(timeout) s") }
        return elapsed
    }
}
