import Foundation
import Histogram
import Synchronization

extension Shapes {
    /// Shape 3a: online at saturation, sends over the senders' own WebSockets with a window. Returns msg/s delivered.
    func measureSaturation(
        _ onlineSet: [[SealedMessage]],
        senders: [OpenStream],
        recipients: [OpenStream],
        collector: Collector
    ) async throws -> Double {
        let label = self.common.label
        let expected = onlineSet.reduce(0) { $0 + $1.count }
        let base = collector.state.withLock { ($0.delivered, $0.accepted, $0.ackFrames) }
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let deadline = start + UInt64(self.timeout * 1e9)
        try await self.sendFlatOut(onlineSet, over: senders, until: deadline)
        let complete = try await waitUntil(seconds: max(1, Double(deadline - min(deadline, now())) / 1e9)) {
            collector.delivered - base.0 >= expected
        }
        let elapsed = Double(now() - start) / 1e9
        let (delivered, accepted, ackFrames, refusals) = collector.state.withLock {
            ($0.delivered - base.0, $0.accepted - base.1, $0.ackFrames - base.2, $0.refusals)
        }
        say(
            "online saturation: \(accepted) accepted, \(delivered) delivered of \(expected) in "
                + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(delivered) / elapsed)) msg/s delivered"
                + (complete ? "" : " (TIMED OUT)") + (refusals.isEmpty ? "" : ", refusals \(refusals)")
                + ", \(ackFrames) ack frames" + cpu.summary
        )
        result("\(label).online_msgs", "\(delivered)")
        result("\(label).online_rate", Double(delivered) / elapsed)
        if let busy = cpu.relay.coresBusy() { result("\(label).online_relay_cores", busy, digits: 2) }
        for (connection, _) in recipients { try await connection.flushAcks() }
        try await Task.sleep(for: .milliseconds(500))
        return Double(delivered) / elapsed
    }

    /// Sends each sender's list over its own socket, `window` frames unanswered, until done or `deadline` (ns).
    func sendFlatOut(_ sets: [[SealedMessage]], over senders: [OpenStream], until deadline: UInt64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, messages) in sets.enumerated() {
                let connection = senders[index].0
                let window = self.window
                group.addTask {
                    for message in messages where now() < deadline {
                        try await connection.send(message.frame, window: window)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Shape 3b: online at a fixed offered rate; send-to-delivery latency from the scheduled send time.
    func measureOfferedRate(
        _ rateSet: [[SealedMessage]],
        rate: Int,
        isSaturation: Bool,
        senders: [OpenStream],
        ratePerSender: Double,
        collector: Collector
    ) async throws {
        let label = self.common.label
        let expected = rateSet.reduce(0) { $0 + $1.count }
        collector.state.withLock {
            $0.trackLatency = true
            $0.latency.reset()
            $0.sentAt.reserveCapacity(expected)
        }
        let base = collector.state.withLock { ($0.delivered, $0.accepted, $0.refused) }
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let late = try await Self.sendOnSchedule(
            rateSet,
            senders: senders,
            interval: 1e9 / ratePerSender,
            start: start,
            collector: collector
        )
        let sendElapsed = Double(now() - start) / 1e9
        // The senders' replies too: one that came during the next shape would count there.
        let complete = try await waitUntil(seconds: 10) {
            collector.state.withLock {
                $0.delivered - base.0 >= expected && $0.accepted - base.1 + $0.refused - base.2 >= expected
            }
        }
        let (delivered, histogram, refusals) = collector.state.withLock {
            ($0.delivered - base.0, $0.latency, $0.refusals)
        }
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
                + (refusals.isEmpty ? "" : ", refusals \(refusals)") + cpu.summary
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
        if let busy = cpu.relay.coresBusy() { result("\(key)_relay_cores", busy, digits: 2) }
    }

    /// Sends each sender's list one message per `interval` (ns) from `start`, the senders' schedules spread evenly
    /// over one interval, recording each scheduled time for the latency. Returns how many sends were >1 ms late.
    private static func sendOnSchedule(
        _ rateSet: [[SealedMessage]],
        senders: [OpenStream],
        interval: Double,
        start: UInt64,
        collector: Collector
    ) async throws -> Int {
        let late = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, messages) in rateSet.enumerated() {
                let connection = senders[index].0
                let offset = interval * Double(index) / Double(rateSet.count)
                group.addTask {
                    for (k, message) in messages.enumerated() {
                        let scheduled = start + UInt64(offset + interval * Double(k))
                        let current = now()
                        if scheduled > current {
                            try await Task.sleep(for: .nanoseconds(Int64(scheduled - current)))
                        } else if current - scheduled > 1_000_000 {
                            late.withLock { $0 += 1 }
                        }
                        collector.state.withLock { $0.sentAt[message.id] = scheduled }
                        try await connection.send(message.frame)
                    }
                }
            }
            try await group.waitForAll()
        }
        return late.withLock { $0 }
    }
}
