import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
import WotsCore
import WotsCrypto
import WotsStorage
import WotsTesting

@testable import WotsRelay

/// Envelope v2 on the relay: accepted over both transports beside v1, refused once past its `expiresAt`, and gone at
/// its `expiresAt` — never delivered after, without an expiry notice (SECURITY.md, "Envelopes").
@Suite struct MessageExpiryTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob

    @Test func aV2EnvelopeAndAV1EnvelopeAreBothAcceptedOverHTTPAndDelivered() async throws {
        try await StreamRelay.run { relay in
            let now = relay.relay.clock.date()
            let v2 = try sealV2("v2", from: alice, to: bob, sentAt: now, expiresAt: now.addingTimeInterval(3_600))
            let never = try sealV2("v2 forever", from: alice, to: bob, sentAt: now, expiresAt: nil)
            let v1 = try Envelope.seal(
                plaintext: Array("v1".utf8),
                from: alice.token,
                identity: alice.identity,
                to: bob.token,
                recipientKeys: bob.publicKeys,
                version: 1
            )
            #expect(v2.header.version == 2 && v1.header.version == 1)

            for envelope in [v2, never, v1] {
                #expect(try await relay.client.send(envelope, session: relay.aliceSession).status == .accepted)
            }

            let mailbox = try await relay.client.mailbox(session: relay.bobSession)
            #expect(mailbox.map(\.envelope) == [v2, never, v1])
            #expect(mailbox.first?.envelope.header.expiresAtMilliseconds == v2.header.expiresAtMilliseconds)
            let socket = try await relay.connect(as: bob)
            #expect(await socket.messages(3).map(\.envelope) == [v2, never, v1])
            await socket.close()
        }
    }

    @Test func aV2EnvelopeIsAcceptedOverTheStream() async throws {
        try await StreamRelay.run { relay in
            let now = relay.relay.clock.date()
            let envelope = try sealV2("hi", from: alice, to: bob, sentAt: now, expiresAt: now.addingTimeInterval(60))
            let receiver = try await relay.connect(as: bob)
            let sender = try await relay.connect(as: alice)

            try await sender.send(.send(envelope), ref: "v2")

            guard case .accepted("v2", envelope.header.messageID, 1, _) = await sender.next().frame else {
                Issue.record("the v2 send was not accepted")
                return
            }
            #expect(await receiver.next().frame?.deliveredMessage?.envelope == envelope)
            await sender.close()
            await receiver.close()
        }
    }

    @Test func anEnvelopeAtOrPastItsExpiresAtIsRefusedOnBothTransportsAndNotStored() async throws {
        try await StreamRelay.run { relay in
            let now = relay.relay.clock.date()
            let sentAt = now.addingTimeInterval(-10)
            let past = try sealV2("late", from: alice, to: bob, sentAt: sentAt, expiresAt: now.addingTimeInterval(-1))

            let response = try await relay.client.send(past, session: relay.aliceSession)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == .messageExpired)

            let sender = try await relay.connect(as: alice)
            let ephemeral = try sealV2(
                "typing",
                from: alice,
                to: bob,
                sentAt: sentAt,
                expiresAt: now.addingTimeInterval(-1)
            )
            try await sender.send(.send(past), ref: "late")
            try await sender.send(.sendEphemeral(ephemeral), ref: "late-typing")
            guard case .error("late", past.header.messageID, .messageExpired, _) = await sender.next().frame,
                case .error("late-typing", ephemeral.header.messageID, .messageExpired, _) = await sender.next().frame
            else {
                Issue.record("an expired send over the stream was not refused with message_expired")
                return
            }
            #expect(try await relay.client.mailbox(session: relay.bobSession).isEmpty)
            await sender.close()
        }
    }

    @Test func aMessageThatExpiresInTwoSecondsIsGoneThenForARecipientWhoWasNeverOnline() async throws {
        let clock = ManualClock()
        try await StreamRelay.run(clock: clock) { relay in
            let now = relay.relay.clock.date()
            let envelope = try sealV2(
                "gone soon",
                from: alice,
                to: bob,
                sentAt: now,
                expiresAt: now.addingTimeInterval(2)
            )
            #expect(try await relay.client.send(envelope, session: relay.aliceSession).status == .accepted)
            #expect(try await relay.client.mailbox(session: relay.bobSession).map(\.envelope) == [envelope])

            clock.advance(by: .seconds(2))

            // Before any sweep: reads leave it out.
            #expect(try await relay.client.mailbox(session: relay.bobSession).isEmpty)
            let socket = try await relay.connect(as: bob)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "nothing is delivered")
            await socket.close()

            let report = await relay.relay.testSweeper().sweepOnce(now: relay.relay.clock.date())
            #expect(report.vanishedMessages == 1)
            #expect(report.expiredMessages == 0)
            #expect(try await relay.relay.storage.mailboxes.depth(of: bob.token) == 0)
            #expect(try await relay.relay.storage.mailboxes.expiryNotices(for: alice.token, limit: 10).isEmpty)
            let notices = try await relay.client.request("/v1/notices", method: .get, session: relay.aliceSession)
            #expect(try notices.decode(NoticesResponse.self).notices.isEmpty, "the sender is told nothing")
        }
    }

    @Test func aGroupMessagePastItsExpiresAtIsNeverDeliveredAndTheSweepDeletesItsBodyAndSlots() async throws {
        let clock = ManualClock()
        try await StreamRelay.run(clock: clock) { relay in
            let sealed = try GroupEnvelope.seal(
                plaintext: Array("gone soon".utf8),
                sentAt: relay.relay.clock.date(),
                from: alice.token,
                identity: alice.identity,
                groupID: try GroupID(bytes: SecureRandom.bytes(16)),
                membershipVersion: 1,
                membershipStateHash: SecureRandom.bytes(32),
                senderSequence: 1,
                to: [bob, TestIdentities.carol].map { GroupRecipientKeys(token: $0.token, publicKeys: $0.publicKeys) },
                expiresAfter: .seconds(2)
            )
            #expect(try await relay.client.sendGroup(sealed, session: relay.aliceSession).status == .accepted)
            let groups = try #require(relay.relay.storage.mailboxes as? any GroupMailboxRepository)
            #expect(try await groups.groupStatistics().slots == 2)

            clock.advance(by: .seconds(2))

            let socket = try await relay.connect(as: bob, groups: true)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut, "nothing is delivered")
            await socket.close()
            let report = await relay.relay.testSweeper().sweepOnce(now: relay.relay.clock.date())
            #expect(report.vanishedGroupMessages == 1)
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
        }
    }

    @Test func aSocketSkipsAMessagePastItsTimeAndGetsTheOnesAfterIt() async throws {
        let clock = ManualClock()
        try await StreamRelay.run(clock: clock) { relay in
            let now = relay.relay.clock.date()
            let first = try sealV2("first", from: alice, to: bob, sentAt: now, expiresAt: now.addingTimeInterval(2))
            let second = try sealV2("second", from: alice, to: bob, sentAt: now, expiresAt: nil)
            #expect(try await relay.client.send(first, session: relay.aliceSession).status == .accepted)
            clock.advance(by: .seconds(3))
            #expect(try await relay.client.send(second, session: relay.aliceSession).status == .accepted)

            let socket = try await relay.connect(as: bob)
            #expect(await socket.next().frame?.deliveredMessage?.envelope == second)
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut)
            await socket.close()
        }
    }
}

/// A version-2 envelope sealed as a client would: `expiresAt` nil never expires (0 on the wire).
func sealV2(
    _ text: String,
    from sender: TestIdentity,
    to recipient: TestIdentity,
    sentAt: Date,
    expiresAt: Date?,
    id: UUID = UUID()
) throws -> Envelope {
    let sentAtMilliseconds = (sentAt.timeIntervalSince1970 * 1000).rounded(.down)
    return try Envelope.seal(
        plaintext: Array(text.utf8),
        messageID: id,
        sentAt: sentAt,
        from: sender.token,
        identity: sender.identity,
        to: recipient.token,
        recipientKeys: recipient.publicKeys,
        version: 2,
        expiresAfter: expiresAt.map {
            .milliseconds(Int64(($0.timeIntervalSince1970 * 1000).rounded(.down) - sentAtMilliseconds))
        }
    )
}
