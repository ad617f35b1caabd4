import Foundation
import WotsClient
import WotsCore

extension Terminal {
    /// A group event in one line: `[NAME] sender: text`, or `[NAME] alice added dave`, warnings in parentheses.
    static func describe(_ event: GroupEvent) -> String {
        let label = "[\(Self.safe(event.groupName))]"
        let notes = event.warnings.map { " (⚠ \(Self.safe($0)))" }.joined()
        switch event.kind {
        case .message:
            let text = Self.groupText(event)
            let indent = "\n" + String(repeating: " ", count: label.count + 1)
            let timer = event.expiresAt.map { " (disappears at \(Self.time($0)))" } ?? ""
            return "\(label) \(Self.safe(event.senderName)): "
                + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: indent) + timer
                + notes
        case .membership:
            return "\(label) \(Self.safe(event.line ?? ""))" + notes
        case .refused:
            return "\(label) ✗ \(Self.safe(event.line ?? "refused"))"
        }
    }

    /// A group message's text, or its attachment (`📎 NAME (SIZE, TYPE) saved to PATH`) and caption.
    private static func groupText(_ event: GroupEvent) -> String {
        if let attachment = event.attachment {
            let size = String(format: "%.1f MiB", Double(attachment.size) / 1_048_576)
            let saved = event.savedTo.map { " saved to \(Self.safe($0))" } ?? " (not downloaded)"
            let line = "📎 \(Self.safe(attachment.name)) (\(size), \(Self.safe(attachment.mediaType)))\(saved)"
            return event.text.map { line + "\n" + Self.safe($0) } ?? line
        }
        return event.text.map { Self.safe($0) } ?? Self.safe(event.line ?? "(not kept)")
    }

    /// `NAME (id 0123abcd…, 3 members, avatar tiger, you are admin)`.
    static func describe(_ group: GroupSummary) -> String {
        let role = group.member ? (group.admin ? ", you are admin" : "") : ", you are no longer a member"
        let avatar = group.avatar.map { ", avatar \($0.rawValue)" } ?? ""
        return "\(Self.safe(group.name)) (id \(group.id.description.prefix(12)), \(group.members.count) members"
            + "\(avatar)\(role))"
    }

    /// One member line of `wots group show`.
    static func describe(_ member: GroupSummary.Member, in group: GroupSummary) -> String {
        let name = member.nickname.map { Self.safe($0.value) } ?? "token \(member.token)"
        let role = member.admin ? " admin" : ""
        var key: String
        switch member.key {
        case .changed?: key = " KEY CHANGED: refused until `wots verify \(name)` and `wots trust \(name)`"
        case .unpinned?: key = " (key not pinned yet)"
        case .pinned?, nil: key = ""
        }
        if member.keyRecorded == false {
            key +=
                " KEY NOT THE ONE THE GROUP RECORDED: compare `wots verify \(name)`, then an admin runs "
                + "`wots group rekey \(Self.safe(group.name)) \(name)`"
        }
        return "  \(name)\(role) \(member.fingerprint.grouped)\(key)"
    }

    /// How far a group message this account sent got: `✓✓ 2/3 · read 1/3`.
    static func mark(_ receipts: HistoryItem.GroupReceipts) -> String {
        let delivered = receipts.delivered == 0 ? "✓" : "✓✓ \(receipts.delivered)/\(receipts.members)"
        return receipts.read == 0 ? delivered : "\(delivered) · read \(receipts.read)/\(receipts.members)"
    }

    /// A receipt line for group messages this account sent: `✓✓ 2/3 · read 1/3 (ab12cd34: bob read it)`.
    static func describe(_ deliveries: [GroupDelivery], _ status: HistoryEntry.Status, member: String) -> String {
        deliveries.map { delivery in
            let counts = HistoryItem.GroupReceipts(
                members: delivery.members,
                delivered: delivery.delivered,
                read: delivery.read
            )
            let what = status == .read ? "read it" : "has it"
            return "  \(Self.mark(counts)) (\(delivery.key.id.lowercasedString.prefix(8)): \(member) \(what))"
        }.joined(separator: "\n")
    }
}
