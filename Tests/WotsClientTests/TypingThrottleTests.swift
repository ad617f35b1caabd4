import Testing
import WotsCore

@testable import WotsClient

/// When a chat tells the peer it is typing, driven by instants rather than sleeps.
@Suite struct TypingThrottleTests {
    let start = ContinuousClock.now

    @Test func startedGoesAtMostOncePerThreeSeconds() {
        var throttle = TypingThrottle<ContinuousClock.Instant>()
        let sends = [0, 1_000, 2_999, 3_000].map { throttle.keystroke(at: start + .milliseconds($0)) }
        #expect(sends == [true, false, false, true])
    }

    @Test func stoppedGoesAfterFiveIdleSecondsOrOnSend() {
        var throttle = TypingThrottle<ContinuousClock.Instant>()
        let beforeTyping = throttle.tick(at: start + .seconds(10))
        #expect(!beforeTyping)  // nothing was started, so nothing to stop
        _ = throttle.keystroke(at: start)
        _ = throttle.keystroke(at: start + .seconds(2))
        let ticks = [6_999, 7_000, 8_000].map { throttle.tick(at: start + .milliseconds($0)) }
        #expect(ticks == [false, true, false])

        _ = throttle.keystroke(at: start + .seconds(9))
        let sends = [throttle.sent(), throttle.sent()]
        #expect(sends == [true, false])
        let afresh = throttle.keystroke(at: start + .seconds(10))
        #expect(afresh)  // a new line starts afresh
    }

    @Test func disappearingTimersAreWholeUnitsUpToAYear() throws {
        #expect(try Messenger.disappearingTimer("2s") == 2)
        #expect(try Messenger.disappearingTimer("1h") == 3_600)
        #expect(try Messenger.disappearingTimer("365d") == 31_536_000)
        #expect(try Messenger.disappearingTimer("off") == 0)
        for bad in ["0s", "366d", "1.5h", "h", "-1s", "10"] {
            #expect(throws: WotsError.self) { try Messenger.disappearingTimer(bad) }
        }
    }
}
