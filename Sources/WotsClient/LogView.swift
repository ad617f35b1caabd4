import Foundation
import WotsCore

/// What this client has seen of each relay's transparency log, kept in `log-view.json`: the relay id and log key
/// pinned at first use, and the newest checkpoint verified, which every later one must extend.
struct LogView: Sendable, Codable {
    struct Relay: Sendable, Codable {
        /// Standard base64.
        var relayID: String
        /// The log's verifier key, `NAME+KEYID+BASE64`.
        var verifierKey: String
        /// The newest verified checkpoint, as the signed note the relay sent.
        var checkpoint: String?
    }

    /// By relay base URL.
    var relays: [String: Relay] = [:]
}

extension LocalStore {
    static let logViewFile = "log-view.json"

    func logView() throws -> LogView {
        try self.read(LogView.self, from: Self.logViewFile) ?? LogView()
    }

    func save(_ view: LogView) throws {
        try self.write(view, to: Self.logViewFile)
    }
}
