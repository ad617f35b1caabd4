/// The body of every refusal: `{"error": {"code": "nickname_taken", "message": "…"}}`.
public struct APIErrorBody: Sendable, Hashable, Codable {
    public struct Detail: Sendable, Hashable, Codable {
        /// Stable snake_case code, for programs.
        public var code: ErrorCode
        /// One human sentence naming the value and the rule, for people.
        public var message: String

        public init(code: ErrorCode, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: ErrorCode, message: String) { self.error = Detail(code: code, message: message) }
}
