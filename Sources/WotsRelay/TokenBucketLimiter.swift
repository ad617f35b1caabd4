import Foundation
import Synchronization
import WotsCore

/// Token buckets per key (a token, an address, a nickname): each call takes one token or says how long to wait.
final class TokenBucketLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: ContinuousClock.Instant
    }

    private let limit: RateLimit
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets untouched for this long are full again and can be forgotten.
    private let forgetAfter: Duration

    init(limit: RateLimit) {
        self.limit = limit
        let refillSeconds = limit.perSecond > 0 ? limit.burst / limit.perSecond : 3600
        self.forgetAfter = .seconds(min(max(refillSeconds, 1), 86_400))
    }

    /// Takes one token for `key`. Returns nil when allowed, or the whole seconds to wait before the next attempt.
    func acquire(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        self.buckets.withLock { buckets in
            if buckets.count > 100_000 { self.forgetIdle(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: self.limit.burst, updatedAt: now)
            let elapsed = (now - bucket.updatedAt).seconds
            bucket.tokens = min(self.limit.burst, bucket.tokens + elapsed * self.limit.perSecond)
            bucket.updatedAt = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            let wait = (1 - bucket.tokens) / max(self.limit.perSecond, 1e-9)
            return max(1, Int(wait.rounded(.up)))
        }
    }

    private func forgetIdle(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { now - $0.value.updatedAt < self.forgetAfter }
    }
}
