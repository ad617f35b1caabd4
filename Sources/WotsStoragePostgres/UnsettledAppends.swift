import Synchronization
import WotsCore
import WotsStorage

/// The appends a repository took and has not settled yet, by message key.
///
/// Appends and acknowledgements go through two group commits that run side by side, so an acknowledgement taken right
/// after the append of its own message could be written first, find nothing and leave the message waiting. An
/// acknowledgement that names an unsettled append waits for it (`MailboxRepository.enqueueAcknowledge`: it applies
/// after it).
final class UnsettledAppends: Sendable {
    private let writes = Mutex<[MessageKey: PendingWrite<MailboxReceipt>]>([:])

    /// Holds `write` under `key` until it settles.
    func track(_ key: MessageKey, _ write: PendingWrite<MailboxReceipt>) {
        self.writes.withLock { $0[key] = write }
        write.whenSettled { [weak self] _ in
            self?.writes.withLock { writes in
                if writes[key] === write { writes[key] = nil }
            }
        }
    }

    /// The unsettled appends of these keys.
    func unsettled(of keys: [MessageKey]) -> [PendingWrite<MailboxReceipt>] {
        self.writes.withLock { writes in keys.compactMap { writes[$0] } }
    }

    /// Calls `body` once every one of `writes` has settled.
    static func whenAllSettled(_ writes: [PendingWrite<MailboxReceipt>], _ body: @escaping @Sendable () -> Void) {
        let left = Mutex(writes.count)
        for write in writes {
            write.whenSettled { _ in
                let isLast = left.withLock { count -> Bool in
                    count -= 1
                    return count == 0
                }
                if isLast { body() }
            }
        }
    }
}
