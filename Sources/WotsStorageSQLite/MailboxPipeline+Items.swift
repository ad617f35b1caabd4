import Foundation
import GRDB
import WotsCore
import WotsStorage

extension MailboxPipeline {
    typealias ItemID = UInt64

    /// What the pipeline knows of one recipient's counter row between commits.
    struct Counter: Sendable {
        /// Whether `next`, `depth` and `bytes` may number and check a new message without the database.
        var isValid: Bool
        /// Valid: the next sequence to hand out. Invalid: the least the next sequence may be, since every number
        /// below it may have been handed out.
        var next: Int64
        /// Valid: messages waiting, counting the staged ones not cancelled.
        var depth = 0
        /// Valid: their serialized bytes.
        var bytes = 0
        /// Staged writes that number this recipient's mail from the database row; the cache becomes valid again only
        /// from the last of them.
        var databaseNumbered = 0
        /// Numbers up to `next` were handed out that a failed commit never wrote: the row is raised to `next` before
        /// the database numbers anything for this recipient.
        var needsRaise = false
        /// The row skipped the numbers an earlier process may have handed out without writing them.
        var isReserved = false
        /// Counts changes made outside the pipeline (sweeps, deletions): a database-numbered write taken before one of
        /// them may have read the row before it, so it does not make the counter valid.
        var outsideChanges: UInt64 = 0

        /// The counter as the pipeline must treat it from now on: numbered from the database, never below `next`.
        mutating func invalidate() {
            self.isValid = false
            self.depth = 0
            self.bytes = 0
        }
    }

    /// An append waiting for its commit.
    struct StagedAppend: Sendable {
        var request: AppendRequest
        var write: PendingWrite<MailboxReceipt>
        /// The message as announced, when it was numbered before its commit; nil when the database numbers it.
        var early: MailboxMessage?
        /// Called after the commit for an append the database numbered.
        var announce: Announcement
        /// When the recipient acknowledged it before its commit: it is then written as acknowledged, never as waiting.
        var acknowledgedAt: Date?
        /// Taken into a transaction: too late to cancel.
        var isTaken = false
        /// Numbered early and handed to a reader, whose acknowledgement may come before the transaction: the writer
        /// waits for it while this is staged, unacknowledged and not taken.
        var isAwaitingAcknowledgement = false
        /// The recipient's `outsideChanges` when a database-numbered append was taken.
        var outsideChangesWhenTaken: UInt64 = 0
        /// When it was staged: from then on an awaited one has `acknowledgementWait` to be acknowledged unwritten.
        var stagedAt: ContinuousClock.Instant = .now

        /// Whether a transaction starting at `now` should leave it staged: handed to a reader less than `wait` ago
        /// and not acknowledged yet, it may still be spared its write.
        func isAwaited(within wait: Duration, at now: ContinuousClock.Instant) -> Bool {
            self.isAwaitingAcknowledgement && self.acknowledgedAt == nil && now - self.stagedAt < wait
        }

        var key: MessageKey { self.request.envelope.header.messageKey }
        var recipient: Token { self.request.envelope.header.recipient }
        var size: Int { self.request.envelope.serializedSize }
    }

    /// An acknowledgement waiting for its commit.
    struct StagedAcknowledgement: Sendable {
        /// Every key asked for, in order, each once.
        var keys: [MessageKey]
        var recipient: Token
        var now: Date
        /// Keys settled by cancelling a staged append: already gone, whatever the database holds.
        var cancelled: Set<MessageKey>
        var write: PendingWrite<[MessageKey]>
    }

    /// A write that numbers mail itself or changes several mailboxes (a group message, a batch), run in order.
    struct StagedExclusive: Sendable {
        var recipients: Set<Token>
        /// The keys of the messages it may write (`KeyFilterState`).
        var keys: [MessageKey] = []
        /// Runs inside the batch's transaction and returns how to settle its caller once the batch committed.
        var perform: @Sendable (Database) throws -> @Sendable () -> Void
        var fail: @Sendable (any Error) -> Void
    }

    enum Staged: Sendable {
        case append(StagedAppend)
        case acknowledgement(StagedAcknowledgement)
        case exclusive(StagedExclusive)
    }

    /// An item as one transaction writes it.
    enum Taken: Sendable {
        /// Numbered before its commit; `acknowledgedAt` when it was acknowledged since.
        case early(MailboxMessage, acknowledgedAt: Date?)
        /// Numbered by the database: `raiseTo` lifts the row first, `reserve` skips numbers an earlier process may
        /// have handed out without writing them.
        case late(AppendRequest, raiseTo: Int64?, reserve: Bool)
        case acknowledgement([MessageKey], recipient: Token, now: Date)
        case exclusive(StagedExclusive, raises: [Token: Int64], reserves: Set<Token>)
    }
}
