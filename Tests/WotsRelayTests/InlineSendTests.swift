import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
import WotsCore
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// A plain `POST /v1/messages` is answered on the connection's event loop, as the router would answer it, and in
/// request order with everything else the connection asks. The channel's inbound end here stands for the router:
/// what reaches it is what the router would have to answer.
@Suite struct InlineSendTests {
    static let alice = TestIdentities.alice
    static let bob = TestIdentities.bob

    /// An HTTP connection's inline handler on a relay where alice and bob are registered and alice has sent bob one
    /// message through the router, so her session and both directory entries are in memory.
    static func withConnection(
        mailboxes: any MailboxRepository = InMemoryMailboxRepository(),
        _ body:
            @Sendable (NIOAsyncTestingChannel, _ session: String, _ client: any TestClientProtocol) async throws
            -> Void
    ) async throws {
        var storage = RelayStorage.inMemory()
        storage.mailboxes = mailboxes
        let harness = try await RelayHarness.make(storage: storage)
        let inlineSend = harness.relay.makeInlineSend()
        try await harness.routerApplication.test(.router) { client in
            try await client.register(alice)
            try await client.register(bob)
            let session = try await client.login(alice)
            let first = try await client.send(try seal("first", from: alice, to: bob), session: session)
            #expect(first.status == .accepted, "the router's send: \(first.errorMessage ?? "")")
            let channel = try await NIOAsyncTestingChannel { channel in
                try channel.pipeline.syncOperations.addHandler(InlineSendHandler(send: inlineSend, serverName: "test"))
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080))
            try await body(channel, session, client)
        }
    }

    static func sendParts(_ envelope: Envelope, session: String) throws -> [HTTPRequestPart] {
        try self.postParts(body: Array(WireCoding.makeEncoder().encode(envelope)), session: session)
    }

    static func postParts(body: [UInt8], session: String) -> [HTTPRequestPart] {
        var head = HTTPRequest(method: .post, scheme: nil, authority: "relay", path: "/v1/messages")
        head.headerFields[.authorization] = "Bearer \(session)"
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(body.count)
        return [.head(head), .body(ByteBuffer(bytes: body)), .end(nil)]
    }

    static let healthParts: [HTTPRequestPart] = [
        .head(HTTPRequest(method: .get, scheme: nil, authority: "relay", path: "/healthz")), .end(nil),
    ]

    static func write(_ parts: [HTTPRequestPart], to channel: NIOAsyncTestingChannel) async throws {
        for part in parts { try await channel.writeInbound(part) }
    }

    /// The head and body of the next answer the handler wrote, once its end is written.
    static func answer(on channel: NIOAsyncTestingChannel) async throws -> (HTTPResponse, [UInt8]) {
        guard case .head(let head) = try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) else {
            throw WotsError(.internalError, "the answer did not start with its head")
        }
        var body: [UInt8] = []
        while true {
            switch try await channel.waitForOutboundWrite(as: HTTPResponsePart.self) {
            case .body(let buffer): body += buffer.readableBytesView
            case .end: return (head, body)
            case .head: throw WotsError(.internalError, "a second head inside one answer")
            }
        }
    }

    @Test func aPlainSendIsAnsweredWithoutTheRouterAndStored() async throws {
        let mailboxes = InMemoryMailboxRepository()
        try await Self.withConnection(mailboxes: mailboxes) { channel, session, _ in
            let envelope = try seal("second", from: Self.alice, to: Self.bob)
            try await Self.write(try Self.sendParts(envelope, session: session), to: channel)

            let (head, body) = try await Self.answer(on: channel)
            #expect(head.status == .accepted)
            #expect(
                head.headerFields.map(\.name) == [.contentType, .contentLength, .date, .server],
                "the router's JSON answers carry these headers, in this order"
            )
            #expect(head.headerFields[.contentLength] == String(body.count))
            #expect(head.headerFields[.server] == "test")
            let receipt = try WireCoding.makeDecoder().decode(SendReceipt.self, from: Data(body))
            #expect(receipt.id == envelope.header.messageID)
            #expect(try await channel.readInbound(as: HTTPRequestPart.self) == nil, "the router was handed the send")
            let stored = try await mailboxes.messages(for: Self.bob.token, after: 0, limit: 10, at: Date())
            #expect(stored.map(\.envelope.header.messageID).last == envelope.header.messageID)
            #expect(stored.count == 2)
        }
    }

    @Test func aSendReadWhileTheRouterOwesAnAnswerGoesToTheRouterBehindIt() async throws {
        try await Self.withConnection { channel, session, _ in
            let send = try Self.sendParts(try seal("behind", from: Self.alice, to: Self.bob), session: session)
            try await Self.write(Self.healthParts + send, to: channel)

            var routed: [HTTPRequestPart] = []
            while let part = try await channel.readInbound(as: HTTPRequestPart.self) { routed.append(part) }
            #expect(routed == Self.healthParts + send)
            #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil)
        }
    }

    @Test func whatIsReadWhileASendIsAnsweredReachesTheRouterOnlyAfterTheAnswer() async throws {
        let mailboxes = HeldMailboxes()
        try await Self.withConnection(mailboxes: mailboxes) { channel, session, _ in
            mailboxes.hold()
            try await Self.write(
                try Self.sendParts(try seal("held", from: Self.alice, to: Self.bob), session: session),
                to: channel
            )
            await mailboxes.held()
            try await Self.write(Self.healthParts, to: channel)
            #expect(
                try await channel.readInbound(as: HTTPRequestPart.self) == nil,
                "the request behind overtook the send"
            )
            #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil, "answered before it was stored")

            mailboxes.release()
            let (head, _) = try await Self.answer(on: channel)
            #expect(head.status == .accepted)
            #expect(try await channel.waitForInboundWrite(as: HTTPRequestPart.self) == Self.healthParts[0])
            #expect(try await channel.waitForInboundWrite(as: HTTPRequestPart.self) == Self.healthParts[1])
        }
    }

    @Test func aBodyTheScannerCannotReadReachesTheRouterAsItCame() async throws {
        try await Self.withConnection { channel, session, _ in
            let parts = Self.postParts(body: Array(#"{"header": 1}"#.utf8), session: session)
            try await Self.write(parts, to: channel)

            var routed: [HTTPRequestPart] = []
            while let part = try await channel.readInbound(as: HTTPRequestPart.self) { routed.append(part) }
            #expect(routed == parts)
            #expect(try await channel.readOutbound(as: HTTPResponsePart.self) == nil)
        }
    }

    @Test func aSessionNotInMemoryGoesToTheRouter() async throws {
        try await Self.withConnection { channel, _, client in
            let bobSession = try await client.login(Self.bob)
            let parts = try Self.sendParts(try seal("from bob", from: Self.bob, to: Self.alice), session: bobSession)
            try await Self.write(parts, to: channel)

            #expect(try await channel.readInbound(as: HTTPRequestPart.self) == parts[0])
        }
    }

    /// A send whose envelope claims bob as its sender on alice's session: refused on the loop with the router's
    /// status and body for the same request.
    @Test func aRefusedSendGetsTheRoutersAnswer() async throws {
        try await Self.withConnection { channel, session, client in
            let forged = try seal("forged", from: Self.bob, to: Self.alice)
            let routed = try await client.send(forged, session: session)
            try await Self.write(try Self.sendParts(forged, session: session), to: channel)

            let (head, body) = try await Self.answer(on: channel)
            #expect(head.status == routed.status)
            #expect(body == Array(routed.body.readableBytesView))
            #expect(head.headerFields[.contentType] == routed.headers[.contentType])
            #expect(routed.status != .accepted)
        }
    }

    /// Over a live connection: the first send is the router's (the session is not in memory yet), the next ones the
    /// loop's, pipelined around a request only the router answers; the answers come in request order, the two kinds
    /// of send answer carry the same headers, and the messages are stored in order.
    @Test func sendsPipelinedOnALiveConnectionAreAnsweredInOrder() async throws {
        try await StreamRelay.run { relay in
            let connection = try RawConnection(port: relay.port)
            let envelopes = try ["one", "two", "three"].map { try seal($0, from: Self.alice, to: Self.bob) }
            let posts = try envelopes.map { envelope in
                let body = String(decoding: try WireCoding.makeEncoder().encode(envelope), as: UTF8.self)
                return "POST /v1/messages HTTP/1.1\r\nHost: relay\r\nAuthorization: Bearer \(relay.aliceSession)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            connection.send(posts[0])
            let first = await connection.read(timeout: .seconds(30)) { Self.responses(in: $0).count == 1 }
            #expect(first, "no answer to the first send: \(connection.text)")
            connection.send(posts[1] + "GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n" + posts[2])

            let all = await connection.read(timeout: .seconds(30)) { Self.responses(in: $0).count == 4 }
            #expect(all, "not every request was answered: \(connection.text)")
            let responses = Self.responses(in: connection.received)
            #expect(responses.map(\.status) == [202, 202, 200, 202])
            #expect(responses[0].headerNames == responses[1].headerNames)
            #expect(responses[1].headerNames == ["content-type", "content-length", "date", "server"])
            let stored = try await relay.client.mailbox(session: relay.bobSession)
            #expect(stored.map(\.envelope.header.messageID) == envelopes.map(\.header.messageID))
        }
    }

    struct RawResponse {
        var status: Int
        var headerNames: [String]
    }

    /// The whole HTTP/1.1 responses in `bytes` (each with a Content-Length body), in order.
    static func responses(in bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = bytes[...]
        let separator = Array("\r\n\r\n".utf8)
        while let end = rest.firstRange(of: separator) {
            let lines = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
            let fields = lines.dropFirst().map { $0.split(separator: ":", maxSplits: 1) }
            let length =
                fields.first { $0.first?.lowercased() == "content-length" }
                .flatMap { Int($0.last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
            guard rest.distance(from: end.upperBound, to: rest.endIndex) >= length else { break }
            responses.append(RawResponse(status: status, headerNames: fields.compactMap { $0.first?.lowercased() }))
            rest = rest[(end.upperBound + length)...]
        }
        return responses
    }

    @Test func theDateHeaderIsAnIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_796_083_200 + 9 * 3600 + 5 * 60 + 7) == "Tue, 01 Dec 2026 09:05:07 GMT")
    }
}

/// In-memory mailboxes whose appends wait, while held, until released.
final class HeldMailboxes: ForwardingMailboxRepository {
    let base: any MailboxRepository = InMemoryMailboxRepository()
    private let gate = Gate()

    func hold() { self.gate.hold() }

    /// Returns once an append is waiting.
    func held() async { await self.gate.held() }

    func release() { self.gate.release() }

    func append(_ envelope: Envelope, receivedAt: Date, mailboxCapacity: Int, mailboxQuota: Int) async throws
        -> MailboxReceipt
    {
        await self.gate.pass()
        return try await self.base.append(
            envelope,
            receivedAt: receivedAt,
            mailboxCapacity: mailboxCapacity,
            mailboxQuota: mailboxQuota
        )
    }
}
