import HummingbirdWebSocket
import Synchronization
import WotsCore

/// The replies of one socket, written in the order of the client frames they answer, each as soon as it and every
/// earlier one is known. A reply waiting for a commit does not hold up reading the next frames, so one socket's sends
/// share group commits with each other; at most `limit` replies wait at a time, after which reading pauses.
///
/// Nothing runs while nothing is to be written: a burst of ready replies starts one task that writes them and ends.
final class ReplyLine: Sendable {
    private struct State {
        /// The place the next frame read gets.
        var nextPlace: UInt64 = 0
        /// The place of the first reply not written yet.
        var nextToWrite: UInt64 = 0
        var ready: [UInt64: RelayFrame] = [:]
        var isWriting = false
        var hasFailed = false
        var roomWaiter: CheckedContinuation<Void, Never>?

        var waiting: UInt64 { self.nextPlace - self.nextToWrite }
    }

    private let outbound: WebSocketOutboundWriter
    private let limit: UInt64
    private let state = Mutex(State())

    init(outbound: WebSocketOutboundWriter, limit: Int) {
        self.outbound = outbound
        self.limit = UInt64(max(1, limit))
    }

    /// Waits until fewer than `limit` replies wait, then gives the next frame its place.
    func place() async -> UInt64 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hasRoom = self.state.withLock { state -> Bool in
                guard state.waiting >= self.limit, !state.hasFailed else { return true }
                state.roomWaiter = continuation
                return false
            }
            if hasRoom { continuation.resume() }
        }
        return self.state.withLock { state in
            defer { state.nextPlace += 1 }
            return state.nextPlace
        }
    }

    /// The reply for the frame at `place`; written once every earlier reply was.
    func answer(_ place: UInt64, with frame: RelayFrame) {
        let startsWriting = self.state.withLock { state -> Bool in
            guard !state.hasFailed else { return false }
            state.ready[place] = frame
            guard !state.isWriting, state.ready[state.nextToWrite] != nil else { return false }
            state.isWriting = true
            return true
        }
        if startsWriting { Task { await self.writeReady() } }
    }

    private func writeReady() async {
        while true {
            let frames = self.state.withLock { state -> [RelayFrame] in
                var frames: [RelayFrame] = []
                while let frame = state.ready.removeValue(forKey: state.nextToWrite + UInt64(frames.count)) {
                    frames.append(frame)
                }
                if frames.isEmpty { state.isWriting = false }
                return frames
            }
            guard !frames.isEmpty else { return }
            do {
                for frame in frames { try await StreamSession.send(frame, to: self.outbound) }
            } catch {
                // The socket is gone; its read loop ends on its own.
                let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.hasFailed = true
                    state.isWriting = false
                    state.ready.removeAll()
                    defer { state.roomWaiter = nil }
                    return state.roomWaiter
                }
                waiter?.resume()
                return
            }
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.nextToWrite += UInt64(frames.count)
                guard state.waiting < self.limit else { return nil }
                defer { state.roomWaiter = nil }
                return state.roomWaiter
            }
            waiter?.resume()
        }
    }
}
