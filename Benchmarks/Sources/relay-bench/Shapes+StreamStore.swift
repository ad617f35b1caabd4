import Foundation

extension Shapes {
    /// Shape 4: durable store over the senders' WebSockets, recipients offline (their sockets closed). Each sender
    /// keeps `window` send frames unanswered, as Prosody's clients write their stanzas without waiting, and counts
    /// only `accepted` replies, each of which the relay sends once the message is committed. Returns how many.
    func measureStreamStore(
        _ storeSet: [[SealedMessage]],
        senders: [StreamConnection],
        collector: Collector
    ) async throws -> Int {
        let label = self.common.label
        let expected = storeSet.reduce(0) { $0 + $1.count }
        guard expected > 0 else { return 0 }
        let base = (collector.accepted, collector.refused)
        collector.expectAnswered(base.0 + base.1 + expected)
        let cpu = PhaseCPU(relayPID: self.common.pid)
        let start = now()
        let deadline = start + UInt64(self.timeout * 1e9)
        try await self.sendFlatOut(storeSet, over: senders, until: deadline)
        let complete = try await waitUntil(seconds: max(1, Double(deadline - min(deadline, now())) / 1e9)) {
            collector.accepted - base.0 + collector.refused - base.1 >= expected
        }
        let elapsed = Double((collector.answeredGoalTime ?? now()) - start) / 1e9
        let (accepted, refused, refusals) = (
            collector.accepted - base.0, collector.refused - base.1, collector.refusals
        )
        say(
            "store over the stream: \(accepted) accepted of \(expected) in \(String(format: "%.2f", elapsed)) s = "
                + "\(Int(Double(accepted) / elapsed)) msg/s" + (complete ? "" : " (TIMED OUT)")
                + (refused == 0 ? "" : ", \(refused) refused: \(refusals)") + cpu.summary
        )
        result("\(label).stream_store_msgs", "\(accepted)")
        result("\(label).stream_store_rate", Double(accepted) / elapsed)
        if let busy = cpu.relay.coresBusy() { result("\(label).stream_store_relay_cores", busy, digits: 2) }
        return accepted
    }
}
