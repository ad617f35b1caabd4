import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WotsCore
import WotsCrypto
import WotsRelay
import WotsStorage
import WotsTesting

/// Group slots on the stream (`?groups=true`): one ordered mailbox with 1:1 messages, one acknowledgement by
/// (sender, id) on either transport, and nothing changed for sockets that did not ask for them.
@Suite struct GroupStreamTests {
    let alice = TestIdentities.alice
    let bob = TestIdentities.bob
    let carol = TestIdentities.carol

    @Test func aGroupsSocketGetsQueuedAndLiveSlotsInMailboxOrderAmongItsMessages() async throws {
        try await StreamRelay.run { relay in
            let first = try seal("one to one, first", from: alice, to: bob)
            let group = try sealForGroup("to the group", from: alice, to: [bob, carol])
            let second = try seal("one to one, second", from: alice, to: bob)
            #expect(try await relay.client.send(first, session: relay.aliceSession).status == .accepted)
            #expect(try await relay.client.sendGroup(group, session: relay.aliceSession).status == .accepted)
            #expect(try await relay.client.send(second, session: relay.aliceSession).status == .accepted)

            let socket = try await relay.connect(as: bob, groups: true)
            let queued = [await socket.next(), await socket.next(), await socket.next()].compactMap(\.frame)
            #expect(queued.count == 3)
            #expect(queued.first?.deliveredMessage?.envelope == first)
            let slot = try #require(queued.dropFirst().first?.deliveredGroupMessage)
            #expect(slot.body == group.envelope)
            let opened = try slot.body.open(
                slot: slot.slot,
                as: bob.token,
                identity: bob.identity,
                senderKeys: alice.publicKeys
            )
            #expect(opened.plaintext == Array("to the group".utf8))
            #expect(queued.last?.deliveredMessage?.envelope == second)
            #expect(queued.map(\.sequence) == [1, 2, 3])

            let live = try sealForGroup("live to the group", from: alice, to: [bob, carol])
            #expect(try await relay.client.sendGroup(live, session: relay.aliceSession).status == .accepted)
            let liveSlot = await socket.next().frame?.deliveredGroupMessage
            #expect(liveSlot?.body == live.envelope)
            #expect(liveSlot?.seq == 4)
            await socket.close()
        }
    }

    @Test func aSocketThatDidNotAskForGroupsGetsItsMessagesAndNoSlots() async throws {
        try await StreamRelay.run { relay in
            let socket = try await relay.connect(as: bob)
            let group = try sealForGroup("to the group", from: alice, to: [bob, carol])
            #expect(try await relay.client.sendGroup(group, session: relay.aliceSession).status == .accepted)
            let after = try seal("after the group message", from: alice, to: bob)
            #expect(try await relay.client.send(after, session: relay.aliceSession).status == .accepted)
            let frame = await socket.next().frame
            #expect(frame?.deliveredMessage?.envelope == after, "the gap the slot left is read past, not waited on")
            #expect(await socket.next(timeout: .milliseconds(300)) == .timedOut)
            await socket.close()
        }
    }

    @Test func oneAcknowledgementBySenderAndIDDeletesASlotOnEitherTransport() async throws {
        let storage = RelayStorage.inMemory()
        try await StreamRelay.run(storage: storage) { relay in
            let group = try sealForGroup("to the group", from: alice, to: [bob, carol])
            let direct = try seal("one to one", from: alice, to: bob)
            #expect(try await relay.client.sendGroup(group, session: relay.aliceSession).status == .accepted)
            #expect(try await relay.client.send(direct, session: relay.aliceSession).status == .accepted)
            let keys = [group.envelope.header.messageKey, direct.header.messageKey]

            let socket = try await relay.connect(as: bob, groups: true)
            #expect([await socket.next(), await socket.next()].compactMap(\.frame).count == 2)
            try await socket.send(.ack(keys), ref: "both")
            #expect(await socket.next() == .frame(.acked(ref: "both", messages: keys)))
            await socket.close()

            let overHTTP = try await relay.client.acknowledge(
                [group.envelope.header.messageKey],
                session: relay.carolSession
            )
            #expect(try overHTTP.decode(AcknowledgeResponse.self).messages == [group.envelope.header.messageKey])
            let groups = try #require(storage.mailboxes as? any GroupMailboxRepository)
            #expect(try await groups.groupStatistics() == GroupStorageStatistics(bodies: 0, slots: 0, bodyBytes: 0))
            let again = try await relay.connect(as: bob, groups: true)
            #expect(await again.next(timeout: .milliseconds(300)) == .timedOut, "nothing is left to deliver")
            await again.close()
        }
    }

    @Test func aGroupsValueOtherThanTrueOrFalseIsRefusedAndTheSocketClosed() async throws {
        try await StreamRelay.run { relay in
            let socket = try await TestSocket.connect(
                port: relay.port,
                headerSession: relay.bobSession,
                query: "?groups=yes"
            )
            let event = await socket.next()
            guard case .frame(.error(_, _, let code, _)) = event else {
                Issue.record("expected an error frame, got \(event)")
                return
            }
            #expect(code == .invalidArgument)
            #expect(await socket.next() == .closed)
        }
    }
}

extension RelayFrame {
    /// The mailbox sequence of a `message` or `group_message` frame.
    var sequence: Int64? { self.deliveredMessage?.seq ?? self.deliveredGroupMessage?.seq }
}
