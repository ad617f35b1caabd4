public import WotsCore
import WotsCrypto

/// How expensive scrypt is for a newly sealed private record.
public enum KeyDerivationCost: String, Sendable, Hashable, CaseIterable {
    /// N = 2^15, r = 8, p = 1 (32 MiB): what real accounts use.
    case standard
    /// N = 2^10, r = 8, p = 1 (1 MiB): for test scripts only, selected with `WOTS_KDF_COST=test`.
    case test

    /// Fresh parameters (random salt) at this cost.
    public func parameters() -> KeyDerivationParameters {
        switch self {
        case .standard: .random()
        case .test: .random(n: 1 << 10, r: 8, p: 1)
        }
    }
}
