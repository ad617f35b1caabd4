import ArgumentParser
import Foundation
import WotsClient
import WotsCore

extension Send {
    /// What `send --group --json` prints: the relay's answer, and with --wait-delivered how far it got.
    struct GroupReport: Encodable {
        var sent: SentGroupMessage
        var delivered: GroupDelivery?

        func encode(to encoder: any Encoder) throws {
            try self.sent.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(self.delivered, forKey: .delivered)
        }

        private enum CodingKeys: String, CodingKey {
            case delivered
        }
    }

    /// `send --group`: a text or a file to every other member, then, with --wait-delivered, the wait for all of them.
    func sendToGroup(_ group: String) async throws {
        let messenger = try self.root.messenger(secretFile: self.secret.secretFile)
        let id = self.messageID()
        let sent: SentGroupMessage
        if let file {
            sent = try await messenger.sendGroupFile(
                at: file,
                caption: self.caption,
                to: group,
                messageID: id,
                disappearAfter: try self.disappearSeconds(),
                progress: TransferReport("uploading").callback
            )
        } else {
            sent = try await messenger.sendGroup(
                try self.messageText(),
                to: group,
                messageID: id,
                disappearAfter: try self.disappearSeconds()
            )
        }
        if !self.json {
            Terminal.out(
                "sent to \(Terminal.safe(sent.groupName)) (\(sent.recipients) members, id \(sent.id.lowercasedString))"
            )
        }
        guard self.waitDelivered else {
            if self.json { try Terminal.json(GroupReport(sent: sent)) }
            return
        }
        let delivery = try await messenger.waitForGroupDelivery(of: sent.id, timeout: try self.waitTimeout())
        if self.json { try Terminal.json(GroupReport(sent: sent, delivered: delivery)) }
        guard delivery.isComplete else {
            Terminal.note(
                "wots: message \(sent.id.lowercasedString) was sent but only \(delivery.delivered)/\(delivery.members) "
                    + "members confirmed it delivered within " + Terminal.span(try self.waitTimeout())
            )
            throw ExitCode(Wots.ExitStatus.unconfirmed)
        }
        if !self.json {
            let read = delivery.read > 0 ? ", read by \(delivery.read)/\(delivery.members)" : ""
            Terminal.out("delivered to \(delivery.delivered)/\(delivery.members) members\(read)")
        }
    }
}
