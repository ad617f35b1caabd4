// relay-bench: a load generator for a running wots-relay over loopback (issue 6); see RelayBench.swift.

import ArgumentParser

// Top-level entry (a `main.swift` cannot carry `@main`): parse, then run the async subcommand.
do {
    var command = try RelayBench.parseAsRoot()
    if let benchCommand = command as? any BenchCommand {
        try await benchCommand.measure()
    } else {
        try command.run()
    }
} catch {
    RelayBench.exit(withError: error)
}
