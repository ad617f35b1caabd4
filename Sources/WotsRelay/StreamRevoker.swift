import Foundation
import Logging
import ServiceLifecycle
import WotsCore
import WotsStorage

/// Closes the open streams of accounts the operator suspended or deleted, in this process or another one on the
/// same database: on every `AccountChanged` about a token with open sockets, it reads the account's standing and
/// closes its sockets with `account_suspended` or `unknown_token`. A rotation ends the account's sessions, so the
/// sockets opened with them are closed with `invalid_session` (the owner's clients log in again; a thief's cannot).
///
/// A socket that opened while a change was on its way may have been registered after the revoker looked for the
/// account's sockets: it checks itself once (`checkStanding`) when the hub heard of a change meanwhile.
struct StreamRevoker: Service {
    let storage: RelayStorage
    let accounts: AccountCache
    let hub: DeliveryHub
    let bus: EventBus
    let logger: Logger

    func run() async throws {
        let changes = self.bus.subscribe(to: AccountChanged.self, bufferSize: 65_536)
        // Each check runs on its own, so a slow peer being closed never holds up the next account's revocation.
        await withDiscardingTaskGroup { group in
            for await change in changes.cancelOnGracefulShutdown() {
                // In this order, so that a socket registered after the tokens are read either looks its session up
                // afresh or sees the count move (`StreamConnection.open`).
                self.accounts.forget(change.token)
                self.hub.noteAccountChange()
                let open = Set(self.hub.tokens)
                for token in change.token.map({ [$0] }) ?? Array(open) where open.contains(token) {
                    group.addTask { await self.revokeIfBarred(token) }
                }
            }
        }
    }

    private func revokeIfBarred(_ token: Token) async {
        do {
            guard let refusal = try await Self.refusal(for: token, in: self.storage) else {
                let now = Date()
                try await self.hub.endSessions(of: token) { session in
                    try await self.storage.authentication.session(hash: session.hash, now: now) == nil
                }
                return
            }
            self.logger.info("closing the streams of an account", metadata: ["code": "\(refusal.code)"])
            await self.hub.revoke(token, refusal)
        } catch {
            self.logger.warning("could not read an account's standing", metadata: ["error": "\(error)"])
        }
    }

    /// Closes `courier`'s socket if its account was suspended or deleted, or its session ended.
    static func checkStanding(of courier: MailCourier, in storage: RelayStorage) async {
        do {
            if let refusal = try await Self.refusal(for: courier.token, in: storage) {
                await courier.revoke(refusal)
            } else if try await storage.authentication.session(hash: courier.session.hash, now: Date()) == nil {
                courier.endSession(Self.sessionEnded)
            }
        } catch {
            // The database is away: the socket stays open, as it does when the revoker cannot read the standing.
        }
    }

    static let sessionEnded = WotsError(
        .invalidSession,
        "the session ended (the account's keys were rotated); log in again"
    )

    /// Why `token` may no longer have streams; nil when it may.
    static func refusal(for token: Token, in storage: RelayStorage) async throws -> WotsError? {
        guard try await storage.directory.entry(token: token) != nil else {
            return WotsError(.unknownToken, "the account was deleted")
        }
        guard try await storage.administration.suspension(of: token) == nil else {
            return WotsError(.accountSuspended, "the relay's operator suspended this account")
        }
        return nil
    }
}
