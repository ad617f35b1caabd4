import Foundation
import WotsCore

extension Messenger {
    /// This account's messages that expired undelivered, as the relay reports them, oldest first; their notices are
    /// cleared at the relay unless `keep`. The caller has unlocked the account.
    func fetchExpiredMessages(keep: Bool) async throws -> [ExpiredMessage] {
        let notices = try await self.relay.notices(limit: RelayClient.maximumNoticeFetch).notices
            .filter { $0.kind == .expired }
        guard !notices.isEmpty else { return [] }
        let contacts = try self.store.contactBook()
        var names: [Token: Nickname?] = [:]
        var expired: [ExpiredMessage] = []
        for notice in notices {
            if names[notice.to] == nil {
                // A recipient deleted since has no entry; the token still says who it was.
                var name = contacts.contact(token: notice.to)?.nickname
                if name == nil { name = (try? await self.relay.entry(token: notice.to))?.nickname }
                names[notice.to] = .some(name)
            }
            expired.append(
                ExpiredMessage(
                    id: notice.id,
                    to: names[notice.to] ?? nil,
                    toToken: notice.to,
                    receivedAt: notice.receivedAt,
                    expiredAt: notice.expiredAt
                )
            )
        }
        if !keep { try await self.relay.clearNotices(notices.map(\.id)) }
        return expired
    }
}
