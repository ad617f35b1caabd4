public import Foundation
import Synchronization
public import WotsCore

/// An `AdministrationRepository` over the in-memory repositories, for tests and throwaway relays. One process holds
/// everything, so there is nobody else to tell about a change: the relay publishes its own.
public final class InMemoryAdministrationRepository: AdministrationRepository {
    private struct State {
        var suspensions: [Token: Date] = [:]
        var invites: [String: Invite] = [:]
    }

    private let directory: InMemoryDirectoryRepository
    private let mailboxes: InMemoryMailboxRepository
    private let authentication: InMemoryAuthenticationRepository
    private let state = Mutex(State())

    public init(
        directory: InMemoryDirectoryRepository,
        mailboxes: InMemoryMailboxRepository,
        authentication: InMemoryAuthenticationRepository
    ) {
        self.directory = directory
        self.mailboxes = mailboxes
        self.authentication = authentication
    }

    @discardableResult
    public func suspend(token: Token, at now: Date) async throws -> DirectoryEntry {
        guard let entry = try await self.directory.entry(token: token) else { throw unknownAccount(token) }
        self.state.withLock { state in
            if state.suspensions[token] == nil { state.suspensions[token] = now }
        }
        try await self.authentication.deleteSessions(of: token)
        return entry
    }

    @discardableResult
    public func unsuspend(token: Token) async throws -> DirectoryEntry {
        guard let entry = try await self.directory.entry(token: token) else { throw unknownAccount(token) }
        self.state.withLock { $0.suspensions[token] = nil }
        return entry
    }

    public func suspension(of token: Token) async throws -> Date? {
        guard try await self.directory.entry(token: token) != nil else { return nil }
        return self.state.withLock { $0.suspensions[token] }
    }

    public func suspensions() async throws -> [Token: Date] {
        var live: [Token: Date] = [:]
        for (token, date) in self.state.withLock({ $0.suspensions })
        where try await self.directory.entry(token: token) != nil {
            live[token] = date
        }
        return live
    }

    public func createInvite(_ invite: Invite) async throws {
        try self.state.withLock { state in
            guard state.invites[invite.id] == nil,
                !state.invites.values.contains(where: { $0.codeHash == invite.codeHash })
            else { throw WotsError(.invalidArgument, "an invite with id \(invite.id) exists already") }
            state.invites[invite.id] = invite
        }
    }

    public func invites() async throws -> [Invite] {
        self.state.withLock { state in
            state.invites.values.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        }
    }

    @discardableResult
    public func revokeInvite(id: String, at now: Date) async throws -> Invite {
        try self.state.withLock { state in
            guard var invite = state.invites[id] else { throw WotsError(.notFound, "no invite has id \(id)") }
            if invite.revokedAt == nil { invite.revokedAt = now }
            state.invites[id] = invite
            return invite
        }
    }

    public func create(
        _ entry: DirectoryEntry,
        redeemingInviteHash codeHash: [UInt8],
        now: Date,
        attestation: [UInt8]
    ) async throws {
        // The use is taken under the lock before the entry is written, and given back when the write fails.
        let id = try self.state.withLock { state in
            guard let invite = state.invites.values.first(where: { $0.codeHash == codeHash }),
                invite.standing(at: now) == .usable
            else { throw unusableInvite() }
            state.invites[invite.id]?.uses += 1
            return invite.id
        }
        do {
            try await self.directory.create(entry, attestation: attestation)
        } catch {
            self.state.withLock { $0.invites[id]?.uses -= 1 }
            throw error
        }
    }

    public func undoCreate(token: Token, restoringInviteHash codeHash: [UInt8]) async throws {
        try await self.directory.undoCreate(token: token)
        self.state.withLock { state in
            guard let invite = state.invites.values.first(where: { $0.codeHash == codeHash }), invite.uses > 0 else {
                return
            }
            state.invites[invite.id]?.uses -= 1
        }
    }

    public func statistics(now: Date, days: Int) async throws -> RelayStatistics {
        let queued = self.mailboxes.queued()
        return RelayStatistics(
            accounts: try await self.directory.count(),
            suspendedAccounts: try await self.suspensions().count,
            queuedMessages: queued.messages,
            queuedBytes: queued.bytes,
            oldestQueuedAt: queued.oldest,
            registrationsPerDay: RelayStatistics.perDay(self.directory.registrationDates(), days: days, endingAt: now)
        )
    }
}
