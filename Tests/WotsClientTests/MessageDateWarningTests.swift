import Foundation
import Testing
import WotsCore
import WotsCrypto

@testable import WotsClient

/// A relay can serve an old envelope again after a restore, and a sender can date a message anywhere up to 2^53 ms:
/// the dates a user is shown carry a warning when they cannot be taken at face value.
@Suite struct MessageDateWarningTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aMessageDatedMoreThanTenMinutesAheadIsFlagged() {
        #expect(
            ReceivedMessage.warnings(sentAt: now.addingTimeInterval(601), now: now, restoredAt: nil) == [.datedInFuture]
        )
        #expect(ReceivedMessage.warnings(sentAt: now.addingTimeInterval(599), now: now, restoredAt: nil).isEmpty)
    }

    @Test func aMessageDatedBeforeTheRestoreIsFlaggedAndOneAfterIsNot() {
        let restoredAt = now.addingTimeInterval(-60)
        #expect(
            ReceivedMessage.warnings(sentAt: restoredAt.addingTimeInterval(-1), now: now, restoredAt: restoredAt)
                == [.sentBeforeRestore]
        )
        #expect(ReceivedMessage.warnings(sentAt: now, now: now, restoredAt: restoredAt).isEmpty)
    }

    @Test func warningsTravelInTheJSONForm() throws {
        var message = ReceivedMessage(
            id: UUID(),
            seq: 1,
            from: nil,
            fromToken: .random(),
            senderFingerprint: try .init(bytes: Array(repeating: 1, count: 32)),
            sentAt: now,
            receivedAt: now,
            text: "hi",
            problem: nil,
            acknowledge: true
        )
        message.warnings = [.sentBeforeRestore]
        let json = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        #expect(json.contains("\"warnings\":[\"sent_before_restore\"]"))
    }
}
