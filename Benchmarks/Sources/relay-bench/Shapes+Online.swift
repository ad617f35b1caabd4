import Foundation
import Histogram

extension Shapes {
    /// Shape 3a: online at saturation, sends over the senders' own WebSockets with a window. Returns msg/s delivered.
    func measureSaturation(
        _ onlineSet: [[SealedMessage]],
        senders: [StreamConnection],
        recipients: [StreamConnection],
        collector: Collector
    ) async throws -> Double {
        let label = self.common.label
        let expected = onlineSet.reduce(0) { $0 + $1.count }
        let base = (collector.delivered, collector.accepted, collector.ackFrames)
        collector.expectDelivered(base.0 + expected)
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let deadline = start + UInt64(self.timeout * 1e9)
        try await self.sendFlatOut(onlineSet, over: senders, until: deadline)
        let complete = try await waitUntil(seconds: max(1, Double(deadline - min(deadline, now())) / 1e9)) {
            collector.delivered - base.0 >= expected
        }
        let elapsed = Double((collector.deliveredGoalTime ?? now()) - start) / 1e9
        let (delivered, accepted, ackFrames, refusals) = (
            collector.delivered - base.0, collector.accepted - base.1, collector.ackFrames - base.2, collector.refusals
        )
        say(
            "online saturation: \(accepted) accepted, \(delivered) delivered of \(expected) in "
                + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(delivered) / elapsed)) msg/s delivered"
                + (complete ? "" : " (TIMED OUT)") + (refusals.isEmpty ? "" : ", refusals \(refusals)")
                + ", \(ackFrames) ack frames" + cpu.summary
        )
        result("\(label).online_msgs", "\(delivered)")
        result("\(label).online_rate", Double(delivered) / elapsed)
        if let busy = cpu.relay.coresBusy() { result("\(label).online_relay_cores", busy, digits: 2) }
        for connection in recipients { try await connection.settleAcks() }
        return Double(delivered) / elapsed
    }

    /// Sends each sender's list over its own socket, `window` frames unanswered, until done or `deadline` (ns).
    func sendFlatOut(_ sets: [[SealedMessage]], over senders: [StreamConnection], until deadline: UInt64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, messages) in sets.enumerated() {
                let frames = messages.map(\.frame)
                let window = self.window
                group.addTask { try await senders[index].send(frames, window: window, until: deadline) }
            }
            try await group.waitForAll()
        }
    }

    /// Shape 3b: online at a fixed offered rate; send-to-delivery latency from the scheduled send time.
    func measureOfferedRate(
        _ rateSet: [[SealedMessage]],
        rate: Int,
        isSaturation: Bool,
        senders: [StreamConnection],
        recipients: [StreamConnection],
        ratePerSender: Double,
        collector: Collector
    ) async throws {
        let label = self.common.label
        let expected = rateSet.reduce(0) { $0 + $1.count }
        let base = (collector.delivered, collector.accepted, collector.refused)
        let interval = 1e9 / ratePerSender
        // Every schedule is known before the first send: recipient i receives what sender i sends, message k of it
        // due at start + offset_i + k × interval, the senders' schedules spread evenly over one interval.
        let start = now() + 50_000_000
        let offsets = rateSet.indices.map { interval * Double($0) / Double(rateSet.count) }
        for (index, messages) in rateSet.enumerated() {
            try await recipients[index].measureLatency(
                against: Self.schedule(of: messages, start: start, offset: offsets[index], interval: interval)
            )
        }
        let wait = Int64(start) - Int64(now())
        if wait > 1_000_000 { try await Task.sleep(nanoseconds: UInt64(wait - 1_000_000)) }
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let late = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, messages) in rateSet.enumerated() {
                let frames = messages.map(\.frame)
                group.addTask {
                    try await senders[index].send(frames, start: start, offset: offsets[index], interval: interval)
                }
            }
            return try await group.reduce(0, +)
        }
        let sendElapsed = Double(now() - start) / 1e9
        // The senders' replies too: one that came during the next shape would count there.
        let complete = try await waitUntil(seconds: 10) {
            collector.delivered - base.0 >= expected
                && collector.accepted - base.1 + collector.refused - base.2 >= expected
        }
        let cpuSummary = cpu.summary
        let relayCores = cpu.relay.coresBusy()
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for recipient in recipients.prefix(rateSet.count) {
            for latency in try await recipient.latencies() { histogram.record(latency) }
            try await recipient.measureLatency(against: nil)
        }
        let delivered = collector.delivered - base.0
        let refusals = collector.refusals
        let latency = Latency(histogram)
        say(
            "online at \(rate) msg/s offered\(isSaturation ? " (the saturation rate)" : ""): sent \(expected) in "
                + "\(String(format: "%.2f", sendElapsed)) s "
                + "(\(Int(Double(expected) / sendElapsed)) msg/s achieved, \(late) sends >1 ms behind schedule), "
                + "\(delivered) delivered\(complete ? "" : " (INCOMPLETE)"); send-to-delivery latency "
                + String(
                    format: "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms",
                    latency.p50,
                    latency.p99,
                    latency.p999,
                    latency.maximum
                )
                + (refusals.isEmpty ? "" : ", refusals \(refusals)") + cpuSummary
        )
        let key = "\(label).rate_\(isSaturation ? "saturation" : String(rate))"
        if isSaturation { result("\(key)_offered", "\(rate)") }
        result("\(key)_achieved", Double(expected) / sendElapsed)
        result("\(key)_delivered", "\(delivered)")
        result("\(key)_expected", "\(expected)")
        result("\(key)_p50_ms", latency.p50, digits: 2)
        result("\(key)_p99_ms", latency.p99, digits: 2)
        result("\(key)_p999_ms", latency.p999, digits: 2)
        result("\(key)_max_ms", latency.maximum, digits: 2)
        if let relayCores { result("\(key)_relay_cores", relayCores, digits: 2) }
    }

    /// Message id → scheduled send time (ns) of one sender's list.
    private static func schedule(of messages: [SealedMessage], start: UInt64, offset: Double, interval: Double)
        -> [MessageIDKey: UInt64]
    {
        var schedule: [MessageIDKey: UInt64] = [:]
        schedule.reserveCapacity(messages.count)
        for (k, message) in messages.enumerated() {
            guard let key = MessageIDKey(message.id) else { continue }
            schedule[key] = start + UInt64(offset + interval * Double(k))
        }
        return schedule
    }
}
