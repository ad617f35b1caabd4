import Testing
import WotsCore
import WotsRelay

/// RFC 6455 strictness on `/v1/stream`: what a WebSocket library lets through is refused with the close code the
/// protocol names (schema/stream.md, "Close codes").
@Suite struct StreamStrictnessTests {
    static var configuration: RelayConfiguration {
        var configuration = RelayHarness.testConfiguration
        configuration.fragmentTimeout = .milliseconds(300)
        return configuration
    }

    /// An authenticated raw socket, after the 101 and the `ready` frame.
    static func openStream(_ relay: StreamRelay) async throws -> RawConnection {
        let connection = try RawConnection(port: relay.port)
        connection.send(WebSocketWire.upgradeRequest(port: relay.port, session: relay.aliceSession))
        let ready = await connection.read(timeout: .seconds(30)) { bytes in
            WebSocketWire.serverFrames(in: bytes).contains { $0.text.contains(#""ready""#) }
        }
        #expect(ready, "no ready frame: \(connection.text)")
        return connection
    }

    /// The close code the relay sent before closing, after waiting at most `timeout` for the close.
    static func closeCode(of connection: RawConnection, timeout: Duration = .seconds(30)) async -> UInt16? {
        #expect(await connection.waitForClose(timeout: timeout), "the relay left the socket open")
        return WebSocketWire.serverFrames(in: connection.received).compactMap(\.closeCode).first
    }

    @Test func anUnmaskedClientFrameIsNotProcessedAndClosesWith1002() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(
                WebSocketWire.text(#"{"type":"subscribe","directory":true,"ref":"unmasked"}"#, masked: false)
            )
            #expect(await Self.closeCode(of: connection) == 1002)
            let frames = WebSocketWire.serverFrames(in: connection.received)
            #expect(!frames.contains { $0.text.contains("unmasked") }, "the unmasked frame was answered")
        }
    }

    @Test func aMaskedFrameStillWorks() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(WebSocketWire.text(#"{"type":"subscribe","directory":true,"ref":"masked"}"#))
            let answered = await connection.read(timeout: .seconds(30)) { bytes in
                WebSocketWire.serverFrames(in: bytes).contains { $0.text.contains(#""subscribed""#) }
            }
            #expect(answered)
            #expect(!connection.isClosed)
        }
    }

    @Test func invalidUTF8InATextFrameClosesWith1007() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(
                WebSocketWire.frame(opcode: 0x1, payload: Array(#"{"type":""#.utf8) + [0xFF, 0xFE, 0x22, 0x7D])
            )
            #expect(await Self.closeCode(of: connection) == 1007)
            #expect(!WebSocketWire.serverFrames(in: connection.received).contains { $0.text.contains("invalid_frame") })
        }
    }

    @Test func aFragmentedMessageLeftUnfinishedClosesWith1008() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            let start = ContinuousClock.now
            connection.send(WebSocketWire.frame(opcode: 0x1, payload: Array(#"{"type":"subscr"#.utf8), isFinal: false))
            #expect(await Self.closeCode(of: connection) == 1008)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
        }
    }

    @Test func aFragmentedMessageFinishedInTimeIsAnswered() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(
                WebSocketWire.frame(opcode: 0x1, payload: Array(#"{"type":"subscribe","#.utf8), isFinal: false)
                    + WebSocketWire.frame(opcode: 0x9, payload: [])
                    + WebSocketWire.frame(opcode: 0x0, payload: Array(#""directory":true}"#.utf8))
            )
            let answered = await connection.read(timeout: .seconds(30)) { bytes in
                WebSocketWire.serverFrames(in: bytes).contains { $0.text.contains(#""subscribed""#) }
            }
            #expect(answered, "\(connection.text)")
        }
    }
}
