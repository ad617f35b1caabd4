import ArgumentParser
import WotsRelayLaunch

extension ServeOption {
    /// Every option and flag of `serve` that the environment and a configuration file may set, read from the
    /// parser's own description of `Serve`: an option added there needs no second list.
    static let ofServe: [ServeOption] = Self.parse(dumpHelp: Serve._dumpHelp())
}
