import Foundation
import NIOEmbedded
import Testing
import WotsCore
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// A client may send its last frames and its close frame in one go: what the relay read before the socket ended still
/// takes effect (schema/stream.md, rule 2), though its replies go nowhere.
@Suite struct StreamEndTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func acknowledgementsSentJustBeforeTheCloseFrameStillDeleteTheirMessages() async throws {
        let storage = RelayStorage.inMemory()
        try await StreamRelay.run(storage: storage) { relay in
            let envelopes = try (0..<Self.frameCount).map { try seal("message \($0)", from: alice, to: bob) }
            for envelope in envelopes { _ = try await relay.client.send(envelope, session: relay.aliceSession) }
            let connection = try Self.open(relay, session: relay.bobSession)
            let delivered = await connection.read(timeout: .seconds(30)) { bytes in
                Self.frames(in: bytes, ofType: "message") == Self.frameCount
            }
            #expect(delivered, "the queued messages were not delivered: \(connection.text)")

            let acknowledgements = try envelopes.enumerated().map { index, envelope in
                try Self.text(ClientFrame(.ack([envelope.header.messageKey]), ref: "ack-\(index)"))
            }
            connection.send(acknowledgements.flatMap { WebSocketWire.text($0) } + Self.closeFrame)
            #expect(await connection.waitForClose(timeout: .seconds(30)))

            let depth = await Self.eventually { try await storage.mailboxes.depth(of: bob.token) == 0 }
            #expect(depth, "acknowledgements read before the close frame were dropped")
        }
    }

    @Test func sendsJustBeforeTheCloseFrameAreStillStored() async throws {
        let storage = RelayStorage.inMemory()
        try await StreamRelay.run(storage: storage) { relay in
            let connection = try Self.open(relay, session: relay.aliceSession)
            let ready = await connection.read(timeout: .seconds(30)) { Self.frames(in: $0, ofType: "ready") == 1 }
            #expect(ready, "no ready frame: \(connection.text)")

            let envelopes = try (0..<Self.frameCount).map { try seal("message \($0)", from: alice, to: bob) }
            let sends = try envelopes.enumerated().map { index, envelope in
                try Self.text(ClientFrame(.send(envelope), ref: "send-\(index)"))
            }
            connection.send(sends.flatMap { WebSocketWire.text($0) } + Self.closeFrame)
            #expect(await connection.waitForClose(timeout: .seconds(30)))

            let stored = await Self.eventually {
                try await storage.mailboxes.depth(of: bob.token) == Self.frameCount
            }
            #expect(stored, "sends read before the close frame were dropped")
            let mailbox = try await storage.mailboxes.messages(for: bob.token, after: 0, limit: 100, at: Date())
            #expect(
                mailbox.map(\.envelope.header.messageID) == envelopes.map(\.header.messageID),
                "out of order or twice"
            )
        }
    }

    @Test func aSubscribeAnsweredAfterTheSocketEndedForwardsNothing() async {
        let bus = EventBus()
        let feed = DirectoryFeed(bus: bus)
        let writer = StreamWriter(channel: EmbeddedChannel(), maximumFrameSize: 1 << 16)
        feed.start(writer: writer)
        #expect(bus.subscriberCount(for: DirectoryChange.self) == 1)

        feed.end()
        #expect(await Self.eventually { bus.subscriberCount(for: DirectoryChange.self) == 0 })
        feed.start(writer: writer)
        #expect(bus.subscriberCount(for: DirectoryChange.self) == 0, "a feed outlived its socket")
    }

    /// Fewer than the frames after which the relay stops reading (`streamMessagesWaiting`), so it reads the close
    /// frame while they wait.
    static let frameCount = 24

    /// A close frame with code 1000.
    static let closeFrame = WebSocketWire.frame(opcode: 0x8, payload: [0x03, 0xE8])

    static func open(_ relay: StreamRelay, session: String) throws -> RawConnection {
        let connection = try RawConnection(port: relay.port)
        connection.send(WebSocketWire.upgradeRequest(port: relay.port, session: session))
        return connection
    }

    static func text(_ frame: ClientFrame) throws -> String {
        String(decoding: try WireCoding.makeEncoder().encode(frame), as: UTF8.self)
    }

    static func frames(in bytes: [UInt8], ofType type: String) -> Int {
        WebSocketWire.serverFrames(in: bytes).filter { $0.text.contains(#""type":"\#(type)""#) }.count
    }

    /// Whether `condition` holds within 20 seconds, asked again every 20 ms: frames read before a close are answered
    /// after it, by a task nothing outside the relay can wait on.
    static func eventually(_ condition: () async throws -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
