// `relay-bench shapes --url URL --pid PID`: N senders and N recipients, genuinely sealed ~1 KiB envelopes, three
// shapes: durable store (recipients offline), drain (recipients connect and ack everything), online (saturation,
// then latency at a fixed offered rate). `relay-bench connections --url URL --pid PID`: idle authenticated
// WebSockets in steps, the relay's RSS per connection, and one message through at the top.
// `relay-bench groups --url URL --pid PID`: group messages of 10, 100 and 256 members beside 1:1 (docs/GROUPS.md).
// Every figure is also printed as a `RESULT key=value` line for scripts/bench-relay.sh.

import ArgumentParser

struct RelayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay-bench",
        abstract: "Load generator for a running wots-relay.",
        subcommands: [Shapes.self, Connections.self, Groups.self]
    )
}

/// The options every subcommand takes.
struct Common: ParsableArguments {
    @Option(help: "Relay base URL, e.g. http://127.0.0.1:8080") var url: String
    @Option(help: "Relay process id, for CPU and RSS figures") var pid: Int32?
    @Option(help: "Label put in front of every RESULT key") var label = "wots"
}

/// The subcommands' work, callable from top-level code (`run()` on an existential resolves to the synchronous one).
protocol BenchCommand {
    func measure() async throws
}
