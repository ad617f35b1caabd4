import WotsCore

/// The payload of a `NOTIFY wots_mail`: which node appended, for whom, at which sequence.
///
/// Spelled `NODE-ID TOKEN SEQUENCE` with single spaces; nothing about the envelope itself.
struct MailNotification: Sendable, Hashable {
    var nodeID: String
    var recipient: Token
    var sequence: Int64

    var payload: String { "\(self.nodeID) \(self.recipient) \(self.sequence)" }

    init(nodeID: String, recipient: Token, sequence: Int64) {
        self.nodeID = nodeID
        self.recipient = recipient
        self.sequence = sequence
    }

    /// Parses a payload; nil when it is not one of ours.
    init?(payload: String) {
        let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let recipient = try? Token(String(parts[1])),
            let sequence = Int64(parts[2])
        else { return nil }
        self.init(nodeID: String(parts[0]), recipient: recipient, sequence: sequence)
    }
}
