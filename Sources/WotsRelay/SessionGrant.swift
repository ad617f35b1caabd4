import Foundation
import WotsCore

/// The bearer session a stream was opened with: the stream lives no longer than it (schema/stream.md).
struct SessionGrant: Sendable, Hashable {
    let token: Token
    /// SHA-256 of the session secret, as the authentication repository keys it.
    let hash: [UInt8]
    let expiresAt: Date
}
