import CoreMetrics
import Foundation
import Hummingbird
import WotsCore
import WotsStorage

/// The caller's notices about messages they sent: list and clear. Every route here is behind `SessionMiddleware`.
struct NoticeRoutes: Sendable {
    static let maximumFetch = 500

    let storage: RelayStorage
    let configuration: RelayConfiguration
    let metrics: RelayMetrics

    func register(on group: RouterGroup<RelayRequestContext>) {
        group.get("/notices") { request, context in
            let token = try context.requireToken()
            let limit =
                try MessageRoutes.integer(
                    request.uri.queryParameters["limit"].map(String.init),
                    name: "limit",
                    range: 1...Int64(Self.maximumFetch),
                    code: .invalidPageLimit
                ) ?? 100
            let notices = try await self.storage.mailboxes.expiryNotices(for: token, limit: Int(limit))
            return try JSONBody.response(
                NoticesResponse(
                    notices: notices.map {
                        DeliveryNotice(
                            kind: .expired,
                            id: $0.messageID,
                            to: $0.recipient,
                            receivedAt: $0.receivedAt,
                            expiredAt: $0.expiredAt
                        )
                    }
                )
            )
        }
        group.post("/notices/ack") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(ClearNoticesRequest.self, from: request, limit: 65_536)
            guard body.notices.count <= ClearNoticesRequest.maximumCount else {
                throw WotsError(
                    .tooManyIDs,
                    "at most \(ClearNoticesRequest.maximumCount) notices per request, got \(body.notices.count)"
                )
            }
            let cleared = try await self.storage.mailboxes.clearExpiryNotices(body.notices, for: token)
            self.metrics.noticesCleared.increment(by: cleared.count)
            return try JSONBody.response(ClearNoticesResponse(notices: cleared))
        }
    }
}
