import Foundation
import Synchronization
import Testing
import WotsCore
import WotsRelay
import WotsTesting

/// The parts of RFC 6455 the relay's socket handler answers itself, byte by byte on a raw connection: pings, the
/// close handshake in both directions, fragments that do not add up, and a relay that shuts down with sockets open.
@Suite struct StreamHandshakeTests {
    static let configuration = StreamStrictnessTests.configuration

    static func openStream(_ relay: StreamRelay) async throws -> RawConnection {
        try await StreamStrictnessTests.openStream(relay)
    }

    static func closeCode(of connection: RawConnection) async -> UInt16? {
        await StreamStrictnessTests.closeCode(of: connection)
    }

    @Test func aPingIsAnsweredWithAPongCarryingItsPayload() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(WebSocketWire.frame(opcode: 0x9, payload: Array("are you there".utf8)))
            let answered = await connection.read(timeout: .seconds(30)) { bytes in
                WebSocketWire.serverFrames(in: bytes).contains { $0.opcode == 0xA }
            }
            let pong = WebSocketWire.serverFrames(in: connection.received).first { $0.opcode == 0xA }
            #expect(answered)
            #expect(pong?.text == "are you there")
            #expect(!connection.isClosed)
        }
    }

    @Test(arguments: [(sent: UInt16(1000), answered: UInt16(1000)), (4000, 1000), (1005, 1002), (999, 1002)])
    func aClientsCloseIsAnsweredThenTheConnectionEnds(sent: UInt16, answered: UInt16) async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(WebSocketWire.frame(opcode: 0x8, payload: [UInt8(sent >> 8), UInt8(sent & 0xFF)]))
            #expect(await Self.closeCode(of: connection) == answered)
        }
    }

    @Test func aContinuationWithNothingToContinueClosesWith1002() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(WebSocketWire.frame(opcode: 0x0, payload: Array(#"{"type":"ack"}"#.utf8)))
            #expect(await Self.closeCode(of: connection) == 1002)
        }
    }

    @Test func aNewMessageInsideAFragmentedOneClosesWith1002() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            connection.send(
                WebSocketWire.frame(opcode: 0x1, payload: Array(#"{"type":"#.utf8), isFinal: false)
                    + WebSocketWire.text(#"{"type":"subscribe","directory":true,"ref":"inside"}"#)
            )
            #expect(await Self.closeCode(of: connection) == 1002)
            #expect(!WebSocketWire.serverFrames(in: connection.received).contains { $0.text.contains("inside") })
        }
    }

    @Test func fragmentsLongerTogetherThanTheFrameLimitCloseWith1009() async throws {
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            let half = [UInt8](repeating: UInt8(ascii: "a"), count: Self.configuration.maximumFrameSize / 2 + 1)
            connection.send(
                WebSocketWire.frame(opcode: 0x1, payload: half, isFinal: false)
                    + WebSocketWire.frame(opcode: 0x0, payload: half)
            )
            #expect(await Self.closeCode(of: connection) == 1009)
        }
    }

    /// Sends arrive in one burst, faster than they are checked and stored: reading pauses while too many wait (here
    /// one, so it pauses at nearly every frame), and resumes as they are answered. Every frame is answered, in order.
    @Test func framesSentFasterThanTheyAreAnsweredAreAllAnsweredInOrder() async throws {
        var configuration = Self.configuration
        configuration.streamMessagesWaiting = 1
        try await StreamRelay.run(configuration: configuration) { relay in
            let connection = try await Self.openStream(relay)
            let refs = (0..<300).map { "r\($0)" }
            var burst: [UInt8] = []
            for ref in refs {
                let frame = ClientFrame(
                    .send(try seal(ref, from: TestIdentities.alice, to: TestIdentities.bob)),
                    ref: ref
                )
                burst += WebSocketWire.frame(opcode: 0x1, payload: Array(try WireCoding.makeEncoder().encode(frame)))
            }
            connection.send(burst)
            let answered = await connection.read(timeout: .seconds(60)) { bytes in
                Self.textFrames(in: bytes).count >= refs.count + 1
            }
            let answeredRefs = Self.textFrames(in: connection.received).dropFirst().map {
                (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["ref"] as? String
            }
            #expect(answered)
            #expect(answeredRefs.count == refs.count)
            #expect(answeredRefs.elementsEqual(refs), "the replies came out of order")
            #expect(!connection.isClosed)
        }
    }

    static func textFrames(in bytes: [UInt8]) -> [WebSocketWire.ServerFrame] {
        WebSocketWire.serverFrames(in: bytes).filter { $0.opcode == 0x1 }
    }

    @Test func aRelayShuttingDownClosesItsOpenStreamsWith1000() async throws {
        let closed = Mutex<Task<UInt16?, Never>?>(nil)
        try await StreamRelay.run(configuration: Self.configuration) { relay in
            let connection = try await Self.openStream(relay)
            // The task owns the connection: it reads until the relay closes it, then lets it go, so the relay's
            // shutdown, which waits for its sockets, can finish.
            closed.withLock { $0 = Task { await Self.closeCode(of: connection) } }
        }
        let code = await closed.withLock { $0 }?.value
        #expect(code == 1000)
    }
}
