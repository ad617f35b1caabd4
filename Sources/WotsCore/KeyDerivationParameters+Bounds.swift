extension KeyDerivationParameters {
    /// Smallest scrypt N accepted anywhere: a relay that serves less (to make a restore credential cheap to guess)
    /// is refused by the client, and the relay stores no record below it.
    public static let minimumN: UInt64 = 1 << 15
    /// Largest scrypt N accepted.
    public static let maximumN: UInt64 = 1 << 20
    /// Accepted scrypt block sizes.
    public static let rRange: ClosedRange<UInt32> = 8...32
    /// Accepted scrypt parallelism.
    public static let pRange: ClosedRange<UInt32> = 1...4
    /// Accepted salt lengths in bytes.
    public static let saltLengths: ClosedRange<Int> = 16...64
    /// Most memory scrypt may need, `128 × r × N` bytes (256 MiB), so a hostile record cannot exhaust memory.
    public static let maximumMemory: UInt64 = 256 << 20

    /// Memory scrypt needs with these parameters, in bytes.
    public var memory: UInt64 { 128 * UInt64(self.r) * self.n }

    /// Checks the parameters against the floors no relay can lower and the ceilings that bound a client's memory.
    /// - Throws: `WotsError.invalidKeyDerivation` naming the value and the rule.
    public func checkBounds() throws {
        guard Self.saltLengths.contains(self.salt.count) else {
            throw WotsError(.invalidKeyDerivation, "scrypt salt is \(self.salt.count) bytes (must be 16–64)")
        }
        guard self.n >= Self.minimumN, self.n <= Self.maximumN, self.n & (self.n - 1) == 0 else {
            throw WotsError(
                .invalidKeyDerivation,
                "scrypt N = \(self.n) is not a power of two from 2^15 to 2^20 (a weaker cost makes the secret cheap to guess)"
            )
        }
        guard Self.rRange.contains(self.r), Self.pRange.contains(self.p) else {
            throw WotsError(
                .invalidKeyDerivation,
                "scrypt r = \(self.r), p = \(self.p) out of bounds (r 8–32, p 1–4)"
            )
        }
        guard self.memory <= Self.maximumMemory else {
            throw WotsError(.invalidKeyDerivation, "scrypt N = \(self.n), r = \(self.r) needs more than 256 MiB")
        }
    }
}
