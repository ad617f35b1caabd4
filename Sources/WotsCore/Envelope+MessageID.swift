public import Foundation

extension Envelope {
    /// A fresh message id: a version 7 UUID (RFC 9562), the Unix time in milliseconds in its first 48 bits and 74
    /// random bits from the system's CSPRNG (`getrandom`; `UUID()` opens `/dev/urandom` on every call on Linux).
    ///
    /// The relay keeps messages and acknowledgements by (sender, id): ids that grow with time land where the sender's
    /// last one did, not on a random page of those indexes each. The time they carry is when the message was made,
    /// which its header's `sentAt` states in the clear already (SECURITY.md, "Replay protection").
    public static func newMessageID(at date: Date = Date()) -> UUID {
        var random = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (random.next() as UInt64, random.next() as UInt64)) { Array($0) }
        // 48 bits hold the milliseconds until the year 10889; a date outside them is clamped, not a crash.
        let milliseconds = UInt64(min(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)), 0xFFFF_FFFF_FFFF))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> UInt64(40 - 8 * index)) }
        bytes[6] = bytes[6] & 0x0F | 0x70  // version 7
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
