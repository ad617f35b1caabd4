/// Why something in Wots failed or was refused: a code from the one vocabulary, a human reason, and where.
///
/// Every layer (domain values, crypto, storage, relay, client) throws this type; the relay turns it into an HTTP
/// status or a WebSocket `error` frame at its edge, the CLI into one line on stderr. Equality compares the code, so
/// callers match on what went wrong without caring about wording. Reasons name the offending value and the rule; they
/// never contain a key, a secret, a session or a plaintext.
public struct WotsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: ErrorCode
    /// One human sentence.
    public let reason: String
    /// For refusals that clear by themselves (rate limits, a full mailbox, a database outage): when to try again.
    public let retryAfterSeconds: Int?
    public let file: String
    public let line: Int

    public init(
        _ code: ErrorCode,
        _ reason: String,
        retryAfterSeconds: Int? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.reason = reason
        self.retryAfterSeconds = retryAfterSeconds
        self.file = file
        self.line = line
    }

    public var description: String { self.reason }

    public static func == (lhs: WotsError, rhs: WotsError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
