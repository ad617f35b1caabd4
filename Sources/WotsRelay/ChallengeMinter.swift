import Foundation
import WotsCore
import WotsCrypto

/// Challenges the relay checks without having stored them, so asking for one writes nothing:
/// `nonce = random(16) || u64 expiry (ms since 1970) || MAC(16)`, where MAC is the first 16 bytes of
/// HMAC-SHA-256(key, "wots-challenge-v1" || 0x00 || u16-bytes(relay id) || random || expiry). The key is a relay
/// secret shared by every process on the database. A nonce is written down only once it is answered, to refuse a
/// second answer.
struct ChallengeMinter: Sendable {
    static let size = 40
    static let label: [UInt8] = Array("wots-challenge-v1".utf8) + [0]
    /// The name the MAC key is stored under (`AuthenticationRepository.relaySecret`).
    static let keyName = "challenge-mac"

    let key: [UInt8]
    let relayID: [UInt8]

    /// A fresh nonce valid until `expiresAt`.
    func mint(expiresAt: Date) -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        writer.write(SecureRandom.bytes(16))
        writer.write(integer: UInt64(max(0, (expiresAt.timeIntervalSince1970 * 1000).rounded(.up))))
        writer.write(self.mac(writer.bytes))
        return writer.bytes
    }

    /// When the nonce expires, if it is one this relay minted and it has not expired at `now`.
    func expiry(of nonce: [UInt8], now: Date) -> Date? {
        guard nonce.count == Self.size else { return nil }
        let body = Array(nonce[..<24])
        guard constantTimeEquals(self.mac(body), Array(nonce[24...])) else { return nil }
        let milliseconds = body[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let expiresAt = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return expiresAt > now ? expiresAt : nil
    }

    private func mac(_ body: [UInt8]) -> [UInt8] {
        var message = ByteWriter(capacity: Self.label.count + 2 + self.relayID.count + body.count)
        message.write(Self.label)
        message.write(uint16Prefixed: self.relayID)
        message.write(body)
        return Array(HMACSHA256.authenticationCode(key: self.key, message: message.bytes).prefix(16))
    }
}
