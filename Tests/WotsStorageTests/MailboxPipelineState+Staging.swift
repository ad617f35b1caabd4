import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

extension MailboxPipeline.State {
    /// Stages `envelope` for a mailbox of 100 messages with no byte quota, handed to a reader when numbered early
    /// unless `handedToReader` is false.
    @discardableResult
    mutating func stageForTest(_ envelope: Envelope, handedToReader: Bool = true) -> MailboxPipeline.AppendStaging {
        let request = AppendRequest(
            envelope: envelope,
            receivedAt: TestValues.time(),
            mailboxCapacity: 100,
            mailboxQuota: .max
        )
        let staging = self.stageAppend(request, announce: { _ in true }, maximumEarly: 100)
        if !handedToReader { self.handedToNobody(envelope.header.messageKey) }
        return staging
    }
}
