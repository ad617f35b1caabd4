import Hummingbird
import WotsCore
import WotsStorage

/// Group messages in the caller's mailbox: send (body once, a slot per member), fetch own slots, acknowledge.
/// Behind `SessionMiddleware`. A stream opened with `?groups=true` carries the same slots (schema/stream.md).
struct GroupMessageRoutes: Sendable {
    let acceptor: GroupMessageAcceptor
    let acknowledger: MailboxAcknowledger
    let configuration: RelayConfiguration
    let clock: RelayClock

    func register(on group: RouterGroup<RelayRequestContext>) {
        group.post("/group-messages") { request, context in
            let token = try context.requireToken()
            let limit = self.configuration.maximumRequestSize + 2 * 400 * self.configuration.maximumGroupMembers
            let body = try await JSONBody.decode(GroupSendRequest.self, from: request, limit: limit)
            return try JSONBody.response(try await self.acceptor.accept(body, from: token), status: .accepted)
        }
        group.get("/group-messages") { request, context in
            let token = try context.requireToken()
            let (after, limit) = try MessageRoutes.mailboxPage(request, maximum: 100, default: 20)
            let messages = try await self.acceptor.storage.groupMailboxes().groupMessages(
                for: token,
                after: after,
                limit: limit,
                at: self.clock.date()
            )
            return try JSONBody.response(
                GroupMailboxResponse(
                    messages: messages.map {
                        DeliveredGroupMessage(
                            seq: $0.sequence,
                            receivedAt: $0.receivedAt,
                            body: $0.envelope,
                            slot: $0.slot
                        )
                    }
                )
            )
        }
        group.post("/group-messages/ack") { request, context in
            let token = try context.requireToken()
            let body = try await JSONBody.decode(AcknowledgeRequest.self, from: request, limit: 262_144)
            let deleted = try await self.acknowledger.acknowledge(body.messages, for: token)
            return try JSONBody.response(AcknowledgeResponse(messages: deleted))
        }
    }
}
