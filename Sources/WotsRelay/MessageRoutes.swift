import CoreMetrics
import Hummingbird
import WotsCore
import WotsStorage

/// The caller's mailbox: send, fetch, acknowledge. Every route here is behind `SessionMiddleware`.
struct MessageRoutes: Sendable {
    static let maximumFetch = 500

    let storage: RelayStorage
    let configuration: RelayConfiguration
    let acceptor: MessageAcceptor
    let acknowledger: MailboxAcknowledger
    let metrics: RelayMetrics
    let clock: RelayClock

    func register(on group: RouterGroup<RelayRequestContext>) {
        group.post("/messages") { request, context in
            let token = try context.requireToken()
            let envelope = try await JSONBody.decodeEnvelope(
                from: request,
                limit: self.configuration.maximumRequestSize
            )
            let receipt = try await self.acceptor.accept(envelope, from: token)
            return JSONBody.response(json: receipt.jsonBytes(), status: .accepted)
        }
        group.get("/messages") { request, context in
            let token = try context.requireToken()
            let (after, limit) = try Self.mailboxPage(request, maximum: Self.maximumFetch, default: 100)
            let messages = try await self.storage.mailboxes.messages(
                for: token,
                after: after,
                limit: limit,
                at: self.clock.date()
            )
            self.metrics.messagesDelivered.increment(by: messages.count)
            return try JSONBody.response(
                MailboxResponse(
                    messages: messages.map {
                        DeliveredMessage(seq: $0.sequence, receivedAt: $0.receivedAt, envelope: $0.envelope)
                    }
                )
            )
        }
        group.post("/messages/ack") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(AcknowledgeRequest.self, from: request, limit: 262_144)
            let deleted = try await self.acknowledger.acknowledge(body.messages, for: token)
            return try JSONBody.response(AcknowledgeResponse(messages: deleted))
        }
    }

    /// A mailbox read's `after` (default 0) and `limit` (1…`maximum`, default `defaultLimit`) query parameters.
    static func mailboxPage(_ request: Request, maximum: Int, default defaultLimit: Int) throws -> (Int64, Int) {
        let query = request.uri.queryParameters
        let after =
            try Self.integer(
                query["after"].map(String.init),
                name: "after",
                range: 0...Int64.max,
                code: .invalidSequence
            ) ?? 0
        let limit =
            try Self.integer(
                query["limit"].map(String.init),
                name: "limit",
                range: 1...Int64(maximum),
                code: .invalidPageLimit
            ) ?? Int64(defaultLimit)
        return (after, Int(limit))
    }

    static func integer(
        _ text: String?,
        name: String,
        range: ClosedRange<Int64>,
        code: ErrorCode
    ) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw WotsError(
                code,
                "\(name) \"\(text.prefix(20))\" must be a whole number in \(range.lowerBound)…\(range.upperBound)"
            )
        }
        return value
    }
}
