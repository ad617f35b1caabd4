import WotsClient
import WotsCore

extension Terminal {
    /// A group event in one line: `[NAME] sender: text`, or `[NAME] alice added dave`, warnings in parentheses.
    static func describe(_ event: GroupEvent) -> String {
        let label = "[\(Self.safe(event.groupName))]"
        let notes = event.warnings.map { " (⚠ \(Self.safe($0)))" }.joined()
        switch event.kind {
        case .message:
            let text = event.text.map { Self.safe($0) } ?? Self.safe(event.line ?? "(not kept)")
            let indent = "\n" + String(repeating: " ", count: label.count + 1)
            return "\(label) \(Self.safe(event.senderName)): "
                + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: indent) + notes
        case .membership:
            return "\(label) \(Self.safe(event.line ?? ""))" + notes
        case .refused:
            return "\(label) ✗ \(Self.safe(event.line ?? "refused"))"
        }
    }

    /// `NAME (id 0123abcd…, 3 members, you are admin)`.
    static func describe(_ group: GroupSummary) -> String {
        let role = group.member ? (group.admin ? ", you are admin" : "") : ", you are no longer a member"
        return "\(Self.safe(group.name)) (id \(group.id.description.prefix(12)), \(group.members.count) members\(role))"
    }

    /// One member line of `wots group show`.
    static func describe(_ member: GroupSummary.Member) -> String {
        let name = member.nickname.map { Self.safe($0.value) } ?? "token \(member.token)"
        let role = member.admin ? " admin" : ""
        let key: String
        switch member.key {
        case .changed?: key = " KEY CHANGED: refused until `wots trust \(name)`"
        case .unpinned?: key = " (key not pinned yet)"
        case .pinned?, nil: key = ""
        }
        return "  \(name)\(role) \(member.fingerprint.grouped)\(key)"
    }
}
