import Foundation
import Testing
import WotsCore
import WotsStorage

@testable import WotsRelay

/// Delivery to one socket, as events in and actions out: no sockets, no tasks, no sleeps.
@Suite struct DeliveryStateMachineTests {
    static let recipient = try! Token(bytes: Array(repeating: 2, count: 16))
    static let sender = try! Token(bytes: Array(repeating: 1, count: 16))

    static func message(_ sequence: Int64) -> StreamMail {
        let header = EnvelopeHeader(
            messageID: UUID(),
            sender: Self.sender,
            senderFingerprint: try! Fingerprint(bytes: Array(repeating: 3, count: 32)),
            recipient: Self.recipient,
            recipientFingerprint: try! Fingerprint(bytes: Array(repeating: 4, count: 32)),
            sentAtMilliseconds: 1
        )
        return .direct(
            MailboxMessage(
                sequence: sequence,
                receivedAt: Date(timeIntervalSince1970: 1),
                envelope: Envelope(header: header, wrappedKey: [], nonce: [], ciphertext: [], signature: [])
            )
        )
    }

    static func messages(_ range: ClosedRange<Int64>) -> [StreamMail] { range.map(Self.message) }

    func machine(_ configure: (inout DeliveryStateMachine.Settings) -> Void = { _ in }) -> DeliveryStateMachine {
        var settings = DeliveryStateMachine.Settings()
        configure(&settings)
        return DeliveryStateMachine(settings: settings, now: .zero)
    }

    @Test func openingReadsTheQueueThenSendsIt() {
        var machine = self.machine()
        #expect(machine.opened() == .read(after: 0, limit: 100))
        let queued = Self.messages(1...3)
        #expect(machine.readFinished(queued, limit: 100) == .send(queued))
        #expect(machine.sendFinished(queued, now: .seconds(1)) == .none)
        #expect(machine.lastSent == 3)
    }

    @Test func aFullPageIsFollowedByAnotherRead() {
        var machine = self.machine { $0.batchSize = 2 }
        #expect(machine.opened() == .read(after: 0, limit: 2))
        let page = Self.messages(1...2)
        #expect(machine.readFinished(page, limit: 2) == .send(page))
        #expect(machine.sendFinished(page, now: .zero) == .read(after: 2, limit: 2))
        #expect(machine.readFinished([], limit: 2) == .none)
    }

    @Test func anOfferThatContinuesTheSequenceIsSentWithoutReading() {
        var machine = self.machine()
        _ = machine.opened()
        _ = machine.readFinished([], limit: 100)
        let fresh = Self.message(1)
        #expect(machine.offer(fresh) == .send([fresh]))
    }

    @Test func anOfferAfterAGapReadsTheMailboxInstead() {
        var machine = self.machine()
        _ = machine.opened()
        _ = machine.readFinished([], limit: 100)
        #expect(machine.offer(Self.message(3)) == .read(after: 0, limit: 100))
    }

    @Test func offersDuringASendWaitAndNothingIsSentTwice() {
        var machine = self.machine()
        _ = machine.opened()
        let first = Self.messages(1...2)
        #expect(machine.readFinished(first, limit: 100) == .send(first))
        let third = Self.message(3)
        #expect(machine.offer(first[1]) == .none, "busy sending: held")
        #expect(machine.offer(third) == .none)
        #expect(machine.sendFinished(first, now: .zero) == .send([third]), "the stale offer of 2 is dropped")
    }

    @Test func aWakeDuringAReadMakesOneMoreRead() {
        var machine = self.machine()
        #expect(machine.opened() == .read(after: 0, limit: 100))
        #expect(machine.wake() == .none)
        #expect(machine.readFinished([], limit: 100) == .read(after: 0, limit: 100))
        #expect(machine.readFinished([], limit: 100) == .none)
    }

    @Test func tooManyOffersFallBackToReadingTheMailbox() {
        var machine = self.machine { $0.maximumOffered = 2 }
        _ = machine.opened()
        for sequence in 1...3 { _ = machine.offer(Self.message(Int64(sequence))) }
        #expect(machine.readFinished([], limit: 100) == .read(after: 0, limit: 100))
    }

    @Test func sendingStopsAtTheUnacknowledgedWindowAndGoesOnWithAcknowledgements() {
        var machine = self.machine { $0.maximumUnacknowledged = 2 }
        #expect(machine.opened() == .read(after: 0, limit: 2), "never read more than the window has room for")
        let window = Self.messages(1...2)
        #expect(machine.readFinished(window, limit: 2) == .send(window))
        #expect(machine.sendFinished(window, now: .zero) == .none, "the window is full")
        #expect(machine.wake() == .none, "a wake-up waits for room too")
        #expect(machine.acknowledged([window[0].key]) == .read(after: 2, limit: 1))
    }

    @Test func anIdleSocketIsPingedWhenNothingWasSentForAnInterval() {
        var machine = self.machine { $0.pingInterval = .seconds(30) }
        _ = machine.opened()
        _ = machine.readFinished([], limit: 100)
        #expect(machine.tick(now: .seconds(29)) == [])
        #expect(machine.tick(now: .seconds(30)) == [.ping])
        #expect(machine.tick(now: .seconds(31)) == [])
        let sent = Self.messages(1...1)
        _ = machine.offer(sent[0])
        _ = machine.sendFinished(sent, now: .seconds(50))
        #expect(machine.tick(now: .seconds(60)) == [], "sending counts as keep-alive")
        #expect(machine.tick(now: .seconds(80)) == [.ping])
    }

    @Test func aResyncReadsTheMailboxOnSchedule() {
        var machine = self.machine { $0.resyncInterval = .seconds(30) }
        _ = machine.opened()
        _ = machine.readFinished([], limit: 100)
        #expect(machine.tick(now: .seconds(10)) == [])
        #expect(machine.tick(now: .seconds(30)) == [.read(after: 0, limit: 100)])
    }

    @Test func aFailedReadKeepsTheSocketAndIsTriedAgainAfterAGrowingPause() {
        var machine = self.machine()
        #expect(machine.opened() == .read(after: 0, limit: 100))
        #expect(machine.readFailed() == .retry(after: .milliseconds(500)))
        #expect(machine.offer(Self.message(1)) == .none, "nothing goes out until a read works")
        #expect(machine.wake() == .read(after: 0, limit: 100))
        #expect(machine.readFailed() == .retry(after: .seconds(1)))
        #expect(machine.wake() == .read(after: 0, limit: 100))
        let queued = Self.messages(1...2)
        #expect(machine.readFinished(queued, limit: 100) == .send(queued))
        _ = machine.sendFinished(queued, now: .zero)
        #expect(machine.wake() == .read(after: 2, limit: 100))
        #expect(machine.readFailed() == .retry(after: .milliseconds(500)), "a read that worked resets the pause")
    }

    @Test func aStoppedMachineAsksForNothing() {
        var machine = self.machine { $0.pingInterval = .seconds(1) }
        _ = machine.opened()
        machine.stop()
        #expect(machine.readFinished(Self.messages(1...2), limit: 100) == .none)
        #expect(machine.offer(Self.message(1)) == .none)
        #expect(machine.wake() == .none)
        #expect(machine.tick(now: .seconds(5)) == [])
    }
}
