import Foundation
import NIOHTTP1
import Testing
import WotsCore
import WotsTesting

@testable import WotsClient

/// Every failure is one clear line that never says the same thing twice, with the next step when there is one.
@Suite struct ErrorLineTests {
    let relay = try! RelayClient(baseURL: "http://127.0.0.1:9")

    func body(_ code: String, _ message: String) -> [UInt8] {
        Array(#"{"error":{"code":"\#(code)","message":"\#(message)"}}"#.utf8)
    }

    @Test func aRateLimitSaysWhenToRetryOnce() {
        let error = self.relay.refusal(
            status: 429,
            headers: ["Retry-After": "29"],
            bytes: self.body("rate_limited", "too many restore attempts for \\\"alice\\\"; retry in 29 s"),
            method: .POST,
            path: "/v1/restore"
        )
        #expect(error.reason == #"too many restore attempts for "alice"; retry in 29 s"#)
        #expect(error.retryAfterSeconds == 29)
    }

    @Test func aRetryAfterTheRelayDidNotPutInWordsIsAdded() {
        let error = self.relay.refusal(
            status: 503,
            headers: ["Retry-After": "5"],
            bytes: self.body("storage_unavailable", "the database is unavailable"),
            method: .POST,
            path: "/v1/messages"
        )
        #expect(error.reason == "the database is unavailable (retry after 5 s)")
    }

    @Test func keysReplacedElsewhereSayToRestore() {
        let refused = WotsError(.badSignature, "the challenge signature does not verify with the token's key")
        let error = self.relay.loginRefusal(
            refused,
            token: TestIdentities.alice.token,
            nickname: TestIdentities.alice.nickname
        )
        #expect(error.code == .badSignature)
        #expect(error.reason.contains("run `wots restore --nick alice`"))
        #expect(!error.reason.contains("does not verify"))
    }

    @Test func messageIDsAreLowercaseInJSON() throws {
        let id = UUID()
        let message = ReceivedMessage(
            id: id,
            seq: 1,
            from: TestIdentities.bob.nickname,
            fromToken: TestIdentities.bob.token,
            senderFingerprint: TestIdentities.bob.fingerprint,
            sentAt: Date(),
            receivedAt: Date(),
            text: "hi",
            problem: nil,
            acknowledge: true
        )
        let sent = SentMessage(
            id: id,
            to: TestIdentities.bob.nickname,
            recipientToken: TestIdentities.bob.token,
            seq: 1,
            receivedAt: Date(),
            pinnedNow: false,
            fingerprint: TestIdentities.bob.fingerprint
        )
        for json in [try WireCoding.makeEncoder().encode(message), try WireCoding.makeEncoder().encode(sent)] {
            let text = String(decoding: json, as: UTF8.self)
            #expect(text.contains(#""id":"\#(id.uuidString.lowercased())""#), "\(text)")
        }
        let decoded = try WireCoding.makeDecoder().decode(
            ReceivedMessage.self,
            from: try WireCoding.makeEncoder().encode(message)
        )
        #expect(decoded.id == id)
    }
}
