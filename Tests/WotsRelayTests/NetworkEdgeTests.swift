import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WotsCore
import WotsRelay

/// The relay's network edge under the attacks an outsider found: each is refused, and refused quickly.
@Suite struct NetworkEdgeTests {
    /// Deadlines of 300 ms, for the tests of the deadlines themselves.
    static var shortDeadlines: RelayConfiguration { self.withDeadlines(.milliseconds(300)) }

    /// Deadlines far from anything the other tests wait for: beside the whole parallel suite on 2 cores, reading a
    /// request can take longer than 300 ms, and those tests judge the answer, not the deadline.
    static var configuration: RelayConfiguration { self.withDeadlines(.seconds(20)) }

    /// The test configuration with `deadline` for headers, bodies and idle connections.
    static func withDeadlines(_ deadline: Duration) -> RelayConfiguration {
        var configuration = RelayHarness.testConfiguration
        configuration.headerTimeout = deadline
        configuration.bodyTimeout = deadline
        configuration.idleTimeout = deadline
        return configuration
    }

    /// A live relay on port 0; `body` gets its port and what it logged at debug and above.
    static func withRelay(
        configuration: RelayConfiguration = configuration,
        _ body: @Sendable (Int, RecordingLogHandler.Lines) async throws -> Void
    ) async throws {
        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "wots.relay.edge-test") { _ in RecordingLogHandler(lines: lines, logLevel: .debug) }
        let relay = try await Relay(configuration: configuration, storage: .inMemory(), logger: logger)
        try await relay.buildApplication().test(.live) { client in
            try await body(try #require(client.port), lines)
        }
    }

    static let healthRequest = "GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n"

    @Test func aSlowlorisConnectionIsClosedAtTheHeaderDeadline() async throws {
        try await Self.withRelay(configuration: Self.shortDeadlines) { port, _ in
            // The header deadline counts from the accept, so the clock starts before the connection does.
            let start = ContinuousClock.now
            let connection = try RawConnection(port: port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: relay\r\n")
            var line = 0
            // The attack: one more header line every 50 ms, never the empty line that ends them.
            while !connection.isClosed, ContinuousClock.now - start < .seconds(30) {
                line += 1
                connection.send("X-Trickle-\(line): a\r\n")
                await connection.read(timeout: .milliseconds(50)) { _ in false }
            }
            #expect(connection.isClosed, "still open after \(line) header lines")
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(connection.text.hasPrefix("HTTP/1.1 408"))
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheHeaderDeadline() async throws {
        try await Self.withRelay(configuration: Self.shortDeadlines) { port, lines in
            let connection = try RawConnection(port: port)
            #expect(await connection.waitForClose(timeout: .seconds(30)))
            #expect(lines.messages(atLeast: .error) == [])
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosed() async throws {
        try await Self.withRelay(configuration: Self.shortDeadlines) { port, _ in
            let connection = try RawConnection(port: port)
            connection.send(Self.healthRequest)
            #expect(
                await connection.read(timeout: .seconds(30)) { String(decoding: $0, as: UTF8.self).contains("200 OK") }
            )
            #expect(await connection.waitForClose(timeout: .seconds(30)), "the idle connection stayed open")
        }
    }

    @Test func aKeepAliveConnectionServesASecondRequest() async throws {
        try await Self.withRelay { port, _ in
            let connection = try RawConnection(port: port)
            connection.send(Self.healthRequest)
            #expect(
                await connection.read(timeout: .seconds(30)) { String(decoding: $0, as: UTF8.self).contains("200 OK") }
            )
            connection.send(Self.healthRequest)
            let twice = await connection.read(timeout: .seconds(30)) {
                String(decoding: $0, as: UTF8.self).components(separatedBy: "200 OK").count == 3
            }
            #expect(twice, "\(connection.text)")
        }
    }

    @Test func aStalledRequestBodyIsClosedAtTheBodyDeadline() async throws {
        try await Self.withRelay(configuration: Self.shortDeadlines) { port, _ in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /v1/register HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"token\":"
            )
            #expect(await connection.waitForClose(timeout: .seconds(30)), "the stalled body kept the connection")
        }
    }

    /// The body deadline counts from the read that brought the head: a body trickled a byte at a time, each in a read
    /// of its own, does not move it.
    @Test func aTrickledRequestBodyIsClosedAtTheBodyDeadline() async throws {
        try await Self.withRelay(configuration: Self.shortDeadlines) { port, _ in
            let connection = try RawConnection(port: port)
            let start = ContinuousClock.now
            connection.send(
                "POST /v1/register HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000\r\n\r\n{"
            )
            var sent = 1
            while !connection.isClosed, ContinuousClock.now - start < .seconds(30) {
                sent += 1
                connection.send(" ")
                await connection.read(timeout: .milliseconds(50)) { _ in false }
            }
            #expect(connection.isClosed, "still open after \(sent) body bytes")
            #expect(ContinuousClock.now - start >= .milliseconds(300))
        }
    }

    /// Requests the HTTP decoder refuses, each sent alone on a fresh connection.
    static let malformedRequests: [String] = [
        "GARBAGE\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost relay\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHo st: relay\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: relay\r\nContent-Length: abc\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: relay\r\nContent-Length: -1\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: relay\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "POST /healthz HTTP/1.1\r\nHost: relay\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        "GET /heal\u{0}thz HTTP/1.1\r\nHost: relay\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: re\u{1}lay\r\n\r\n",
        "GET /healthz HTTP/1.1\r\n: empty-name\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: relay\r\n folded: line\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: relay\r\n"
            + String(repeating: "X-Big: " + String(repeating: "a", count: 1_000) + "\r\n", count: 100) + "\r\n",
        "\u{16}\u{3}\u{1}\u{0}\u{a5}\u{1}\u{0}\u{0}\u{a1}\u{3}\u{3}\r\n\r\n",
        "GET /healthz HTTP/1.1 extra\r\nHost: relay\r\n\r\n",
        "GET /healthz FTP/1.1\r\nHost: relay\r\n\r\n",
        "G\u{7f}T /healthz HTTP/1.1\r\nHost: relay\r\n\r\n",
    ]

    @Test(arguments: Self.malformedRequests.indices)
    func aMalformedRequestIsAnswered400AndClosed(_ index: Int) async throws {
        try await Self.withRelay { port, lines in
            let connection = try RawConnection(port: port)
            connection.send(Self.malformedRequests[index])
            #expect(
                await connection.waitForClose(timeout: .seconds(30)),
                "left open: \(Self.malformedRequests[index].debugDescription)"
            )
            #expect(
                connection.text.hasPrefix("HTTP/1.1 400"),
                "\(Self.malformedRequests[index].prefix(80).debugDescription) got \(connection.text.debugDescription)"
            )
            #expect(lines.messages(atLeast: .error) == [])
        }
    }

    @Test func aWebSocketUpgradeOnAnotherRouteGets400AndNoErrorLog() async throws {
        try await Self.withRelay { port, lines in
            for path in ["/healthz", "/v1/messages", "/nowhere", "/v1/stream/extra"] {
                let connection = try RawConnection(port: port)
                connection.send(WebSocketWire.upgradeRequest(port: port, session: "x", path: path))
                #expect(await connection.waitForClose(timeout: .seconds(30)), "\(path) left open")
                #expect(connection.text.hasPrefix("HTTP/1.1 400"), "\(path): \(connection.text)")
            }
            #expect(lines.messages(atLeast: .error) == [])
        }
    }

    @Test func aWebSocketUpgradeWithAnotherVersionGets426() async throws {
        try await Self.withRelay { port, _ in
            let connection = try RawConnection(port: port)
            connection.send(
                WebSocketWire.upgradeRequest(port: port, session: "x").replacingOccurrences(
                    of: "Sec-WebSocket-Version: 13",
                    with: "Sec-WebSocket-Version: 8"
                )
            )
            #expect(await connection.waitForClose(timeout: .seconds(30)))
            #expect(connection.text.hasPrefix("HTTP/1.1 426"))
            #expect(connection.text.lowercased().contains("sec-websocket-version: 13"))
        }
    }

    @Test func connectionsPastTheCapAreClosedAtOnceAndTheCapFreesAgain() async throws {
        var configuration = RelayHarness.testConfiguration
        configuration.maximumConnections = 4
        try await Self.withRelay(configuration: configuration) { port, lines in
            var held = try (0..<4).map { _ in try RawConnection(port: port) }
            let refused = try RawConnection(port: port)
            #expect(await refused.waitForClose(timeout: .seconds(30)), "a fifth connection was kept")
            #expect(refused.received.isEmpty)
            #expect(lines.messages(atLeast: .warning).contains { $0.contains("connection cap reached") })

            held.removeLast()
            // The freed place is noticed when the relay sees the close: a client refused before then tries again.
            // The deadline bounds a wait for that event; on 2 cores beside the whole parallel suite it took over 10 s.
            let deadline = ContinuousClock.now + .seconds(30)
            var answered = false
            while !answered, ContinuousClock.now < deadline {
                let connection = try RawConnection(port: port)
                connection.send(Self.healthRequest)
                answered = await connection.read(timeout: deadline - ContinuousClock.now) {
                    String(decoding: $0, as: UTF8.self).contains("200 OK")
                }
            }
            #expect(answered)
            #expect(held.count == 3)
        }
    }
}
