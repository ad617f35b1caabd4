import NIOHTTP1
public import WotsCore

extension RelayClient {
    /// `POST /v1/group-messages` (authenticated): the body once and one slot per recipient.
    public func sendGroup(_ request: GroupSendRequest) async throws -> GroupSendReceipt {
        try await self.call(.POST, "/v1/group-messages", body: request, authenticated: true)
    }

    /// `GET /v1/group-messages?after=…&limit=…` (authenticated): this account's slots with their bodies.
    public func groupMailbox(after sequence: Int64, limit: Int) async throws -> GroupMailboxResponse {
        try await self.call(.GET, "/v1/group-messages?after=\(sequence)&limit=\(limit)", authenticated: true)
    }

    /// `POST /v1/group-messages/ack` (authenticated): deletes this account's slots by (sender, id).
    @discardableResult
    public func acknowledgeGroup(_ keys: [MessageKey]) async throws -> AcknowledgeResponse {
        try await self.call(
            .POST,
            "/v1/group-messages/ack",
            body: AcknowledgeRequest(messages: keys),
            authenticated: true
        )
    }
}
