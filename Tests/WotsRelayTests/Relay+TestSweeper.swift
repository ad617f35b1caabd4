import Logging

@testable import WotsRelay

extension Relay {
    /// A sweeper over this relay's storage, configuration and metrics, run by hand with `sweepOnce`.
    /// - Parameter clock: default the relay's own.
    func testSweeper(clock: RelayClock? = nil) -> Sweeper {
        var logger = Logger(label: "wots.relay.test.sweeper")
        logger.logLevel = .warning
        return Sweeper(
            storage: self.storage,
            configuration: self.configuration,
            metrics: self.metrics,
            clock: clock ?? self.clock,
            logger: logger
        )
    }
}
