import Foundation
import Synchronization
import WotsCore
import WotsStorage
import WotsTesting

/// In-memory mailboxes whose first `refusals` acknowledgements fail as a lost database does (`storage_unavailable`,
/// nothing deleted): for the client's side of schema/stream.md rule 4.
final class RefusingAcknowledgements: ForwardingMailboxRepository {
    let base: any MailboxRepository
    private let left: Mutex<Int>
    private let refused = Mutex(0)

    init(base: any MailboxRepository, refusals: Int) {
        self.base = base
        self.left = Mutex(refusals)
    }

    /// How many acknowledgements were refused so far.
    var refusalCount: Int { self.refused.withLock { $0 } }

    func acknowledge(_ keys: [MessageKey], for recipient: Token, at now: Date) async throws -> [MessageKey] {
        let refuses = self.left.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        guard !refuses else {
            self.refused.withLock { $0 += 1 }
            throw WotsError(.storageUnavailable, "the test's database is down")
        }
        return try await self.base.acknowledge(keys, for: recipient, at: now)
    }
}
