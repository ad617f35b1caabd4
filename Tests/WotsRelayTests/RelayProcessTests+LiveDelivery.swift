import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

extension RelayProcessTests {
    /// The relay hands a live recipient its message before the commit (SQLite numbers it when taking it); what the
    /// recipient acknowledged is never delivered again, what it did not survives `kill -9`, and no sequence number is
    /// given to two messages across the crash.
    @Test func liveMailAcknowledgedOrNotKeepsItsPromisesAcrossKill9() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = "sqlite:\(folder.path)/relay.sqlite"
        let first = try await RelayProcess.start(database: database, logFile: folder.appendingPathComponent("1.log"))
        let aliceSession = try await self.registerAndLogin(alice, on: first)
        let bobSession = try await self.registerAndLogin(bob, on: first)
        let sender = try await TestSocket.connect(port: first.port, headerSession: aliceSession)
        let recipient = try await TestSocket.connect(port: first.port, headerSession: bobSession)
        #expect(await sender.next().frame == .ready(ref: nil, token: alice.token))
        #expect(await recipient.next().frame == .ready(ref: nil, token: bob.token))

        // Phase 1: bob acknowledges every other message as it arrives, as a client online does.
        let phaseOne = try (0..<100).map { try seal("one \($0)", from: alice, to: bob) }
        for envelope in phaseOne { try await sender.send(.send(envelope)) }
        var seen: [UUID: Int64] = [:]
        var acknowledged: Set<UUID> = []
        var confirmed: Set<UUID> = []
        while seen.count < phaseOne.count || confirmed.count < phaseOne.count / 2,
            let frame = await recipient.next().frame
        {
            switch frame {
            case .message(let message):
                let id = message.envelope.header.messageID
                seen[id] = message.seq
                if phaseOne.firstIndex(where: { $0.header.messageID == id })?.isMultiple(of: 2) == true {
                    acknowledged.insert(id)
                    try await recipient.send(.ack([message.envelope.header.messageKey]))
                }
            case .acked(_, let keys):
                confirmed.formUnion(keys.map(\.id))
            default:
                Issue.record("unexpected frame \(frame)")
            }
        }
        #expect(seen.count == phaseOne.count, "every message reached the recipient online")
        #expect(confirmed == acknowledged && acknowledged.count == phaseOne.count / 2)
        let accepted = await self.acceptedIDs(on: sender, count: phaseOne.count)
        #expect(accepted == Set(phaseOne.map(\.header.messageID)), "every send was answered accepted")

        // Phase 2: delivered, not acknowledged, and the relay is killed without waiting for the commit.
        let phaseTwo = try (0..<20).map { try seal("two \($0)", from: alice, to: bob) }
        for envelope in phaseTwo { try await sender.send(.send(envelope)) }
        for message in await recipient.messages(phaseTwo.count) {
            seen[message.envelope.header.messageID] = message.seq
        }
        await first.kill9()
        let acceptedBeforeKill = await self.acceptedIDs(on: sender, count: phaseTwo.count, timeout: .seconds(1))
        await sender.close()
        await recipient.close()

        let second = try await RelayProcess.start(database: database, logFile: folder.appendingPathComponent("2.log"))
        let session = try await self.login(bob, on: second)
        let (status, data) = try await second.request("/v1/messages?after=0&limit=500", session: session)
        #expect(status == 200)
        let waiting = try WireCoding.makeDecoder().decode(MailboxResponse.self, from: data).messages
        let waitingIDs = waiting.map(\.envelope.header.messageID)
        #expect(Set(waitingIDs).count == waitingIDs.count, "nothing is stored twice")
        #expect(Set(waitingIDs).isDisjoint(with: acknowledged), "an acknowledged message is never delivered again")
        let unacknowledged = Set(phaseOne.map(\.header.messageID)).subtracting(acknowledged)
        #expect(unacknowledged.isSubset(of: Set(waitingIDs)), "a message that got accepted was lost")
        #expect(acceptedBeforeKill.isSubset(of: Set(waitingIDs)), "a message accepted before the kill was lost")
        for message in waiting where seen[message.envelope.header.messageID] != nil {
            #expect(seen[message.envelope.header.messageID] == message.seq, "a stored message keeps its number")
        }

        let aliceAgain = try await self.login(alice, on: second)
        let (sent, receiptData) = try await second.request(
            "/v1/messages",
            method: "POST",
            session: aliceAgain,
            body: try WireCoding.makeEncoder().encode(try seal("after the crash", from: alice, to: bob))
        )
        #expect(sent == 202)
        let receipt = try WireCoding.makeDecoder().decode(SendReceipt.self, from: receiptData)
        #expect(receipt.seq > seen.values.max() ?? 0, "no number handed out before the crash is given again")
        #expect(await second.terminate() == 0)
    }

    /// The ids of the next `count` `accepted` frames (fewer when the socket closes or goes quiet for `timeout`).
    private func acceptedIDs(on socket: TestSocket, count: Int, timeout: Duration = .seconds(10)) async -> Set<UUID> {
        var ids: Set<UUID> = []
        while ids.count < count, let frame = await socket.next(timeout: timeout).frame {
            if case .accepted(_, let id, _, _) = frame { ids.insert(id) }
        }
        return ids
    }
}
