import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsRelay
import WotsTesting

/// The stream protocol of schema/stream.md: every client frame gets exactly one reply carrying its `ref`.
@Suite struct StreamProtocolTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func everyClientFrameTypeIsAnsweredWithItsRef() async throws {
        try await StreamRelay.run { relay in
            let socket = try await TestSocket.connect(port: relay.port)
            try await socket.send(.auth(session: relay.aliceSession), ref: "r-auth")
            #expect(await socket.next() == .frame(.ready(ref: "r-auth", token: alice.token)))

            let envelope = try seal("hello", from: alice, to: bob)
            try await socket.send(.send(envelope), ref: "r-send")
            guard case .accepted(let ref, let id, let seq, _) = await socket.next().frame else {
                Issue.record("no accepted frame")
                return
            }
            #expect(ref == "r-send")
            #expect(id == envelope.header.messageID)
            #expect(seq == 1)

            try await socket.send(.ack([MessageKey(sender: bob.token, id: UUID())]), ref: "r-ack")
            #expect(await socket.next() == .frame(.acked(ref: "r-ack", messages: [])))

            try await socket.send(.subscribe(directory: true), ref: "r-sub")
            #expect(await socket.next() == .frame(.subscribed(ref: "r-sub", directory: true)))
            try await socket.send(.subscribe(directory: false), ref: "r-unsub")
            #expect(await socket.next() == .frame(.subscribed(ref: "r-unsub", directory: false)))

            try await socket.send(.auth(session: relay.aliceSession), ref: "r-again")
            guard case .error("r-again", nil, .alreadyAuthenticated, _) = await socket.next().frame else {
                Issue.record("a second auth frame was not refused with its ref")
                return
            }
            try await socket.send(.send(envelope))
            guard case .accepted(nil, envelope.header.messageID, 1, _) = await socket.next().frame else {
                Issue.record("a frame without ref was not answered without one")
                return
            }
            await socket.close()
        }
    }

    /// Sends and acknowledgements are answered on the socket's event loop, a subscription in a task: frames read
    /// behind one that waits for its task wait too, so no reply overtakes an earlier one.
    @Test func repliesKeepFrameOrderWhenAnEarlierFrameWaitsForItsTask() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            let (first, second) = (try seal("first", from: alice, to: bob), try seal("second", from: alice, to: bob))
            for round in 0..<3 {
                try await socket.send(.subscribe(directory: true), ref: "sub-\(round)")
                try await socket.send(.send(first), ref: "send-\(round)")
                try await socket.send(.ack([]), ref: "ack-\(round)")
                try await socket.send(.send(second), ref: "again-\(round)")
            }

            var refs: [String?] = []
            for _ in 0..<12 { refs.append(await socket.next().frame?.ref) }
            #expect(refs == (0..<3).flatMap { ["sub-\($0)", "send-\($0)", "ack-\($0)", "again-\($0)"] })
            await socket.close()
        }
    }

    @Test func refusedSendsNameTheirRefAndMessageID() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            let forged = try seal("pretending", from: bob, to: alice)
            try await socket.send(.send(forged), ref: "forged")
            #expect(
                await socket.next().frame?.errorParts
                    == ErrorParts(ref: "forged", id: forged.header.messageID, code: .senderMismatch)
            )
            #expect(try await relay.client.mailbox(session: relay.aliceSession).isEmpty)
            await socket.close()
        }
    }

    @Test(
        arguments: [
            (#"not json"#, nil, ErrorCode.invalidFrame),
            (#"[]"#, nil, .invalidFrame),
            (#"{}"#, nil, .invalidFrame),
            (#"{"type": "launch", "ref": "x1"}"#, "x1", .invalidFrame),
            (#"{"type": "ack", "ref": "x2", "ids": ["3f2504e0-4f89-41d3-9a0c-0305e82c3301"]}"#, "x2", .invalidFrame),
            (#"{"type": "ack", "ref": "x3", "messages": [{"sender": "nope", "id": "1"}]}"#, "x3", .invalidToken),
            (#"{"type": "subscribe", "ref": "x4"}"#, "x4", .invalidFrame),
        ] as [(String, String?, ErrorCode)]
    )
    func malformedFramesGetAnErrorWithWhatCouldBeReadAndTheStreamGoesOn(
        frame: String,
        ref: String?,
        code: ErrorCode
    ) async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            try await socket.sendRaw(frame)
            #expect(await socket.next().frame?.errorParts == ErrorParts(ref: ref, id: nil, code: code))
            try await socket.send(.subscribe(directory: false), ref: "still-there")
            #expect(await socket.next() == .frame(.subscribed(ref: "still-there", directory: false)))
            await socket.close()
        }
    }

    @Test func aSendFrameWithABadEnvelopeStillNamesItsMessageID() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            let id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
            try await socket.sendRaw(#"{"type": "send", "ref": "bad", "envelope": {"version": 1, "id": "\#(id)"}}"#)
            #expect(
                await socket.next().frame?.errorParts
                    == ErrorParts(ref: "bad", id: UUID(uuidString: id), code: .invalidFrame)
            )
            await socket.close()
        }
    }

    @Test func tooManyAcknowledgementsAreRefusedWholeNeverCut() async throws {
        try await StreamRelay.run { relay in
            let envelope = try seal("kept", from: alice, to: bob)
            _ = try await relay.client.send(envelope, session: relay.aliceSession)
            let socket = try await relay.connect(as: bob)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == envelope)
            let keys =
                [envelope.header.messageKey]
                + (0..<AcknowledgeRequest.maximumCount).map { _ in MessageKey(sender: alice.token, id: UUID()) }
            try await socket.send(.ack(keys), ref: "flood")
            #expect(await socket.next().frame?.errorParts == ErrorParts(ref: "flood", id: nil, code: .tooManyIDs))
            #expect(try await relay.client.mailbox(session: relay.bobSession).map(\.envelope) == [envelope])

            let http = try await relay.client.acknowledge(keys, session: relay.bobSession)
            #expect(http.status == .badRequest)
            #expect(http.errorCode == .tooManyIDs)
            #expect(try await relay.client.mailbox(session: relay.bobSession).map(\.envelope) == [envelope])
            await socket.close()
        }
    }

    @Test func aTooLongRefIsRefused() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            let ref = String(repeating: "r", count: ClientFrame.maximumReferenceSize + 1)
            try await socket.sendRaw(#"{"type": "subscribe", "directory": true, "ref": "\#(ref)"}"#)
            #expect(await socket.next().frame?.errorParts == ErrorParts(ref: nil, id: nil, code: .invalidFrame))
            await socket.close()
        }
    }

    @Test func directoryChangesArriveOnlyWhileSubscribed() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: alice)
            try await socket.send(.subscribe(directory: true), ref: "on")
            #expect(await socket.next() == .frame(.subscribed(ref: "on", directory: true)))
            try await relay.client.register(TestIdentities.mallory)
            #expect(
                await socket.next()
                    == .frame(.directory(change: "registered", nickname: TestIdentities.mallory.nickname))
            )
            try await socket.send(.subscribe(directory: false), ref: "off")
            #expect(await socket.next() == .frame(.subscribed(ref: "off", directory: false)))
            let mallorySession = try await relay.client.login(TestIdentities.mallory)
            let deleted = try await relay.client.deleteAccount(TestIdentities.mallory, session: mallorySession)
            #expect(deleted.status == .noContent)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut)
            await socket.close()
        }
    }
}

/// The parts of an `error` frame a test checks (the message is for people).
struct ErrorParts: Equatable {
    var ref: String?
    var id: UUID?
    var code: ErrorCode
}

extension RelayFrame {
    var errorParts: ErrorParts? {
        if case .error(let ref, let id, let code, _) = self { return ErrorParts(ref: ref, id: id, code: code) }
        return nil
    }
}

extension RelayFrame {
    /// The `ref` of a reply to a client frame; nil for frames that answer none.
    var ref: String? {
        switch self {
        case .ready(let ref, _), .accepted(let ref, _, _, _), .ephemeralAccepted(let ref, _, _), .acked(let ref, _),
            .subscribed(let ref, _), .error(let ref, _, _, _):
            ref
        case .message, .groupMessage, .ephemeralMessage, .ephemeralGroupMessage, .directory:
            nil
        }
    }
}
