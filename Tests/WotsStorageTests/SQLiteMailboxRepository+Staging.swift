import WotsCore
import WotsStorage

@testable import WotsStorageSQLite

extension SQLiteMailboxRepository {
    /// Stages `envelope` for a mailbox of at most 100 messages and no byte quota.
    func stage(_ envelope: Envelope, announce: @escaping Announcement) async throws -> PendingWrite<MailboxReceipt> {
        try await self.enqueueAppend(
            envelope,
            receivedAt: TestValues.time(),
            mailboxCapacity: 100,
            mailboxQuota: .max,
            announce: announce
        )
    }
}
