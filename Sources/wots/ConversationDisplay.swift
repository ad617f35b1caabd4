import Foundation
import WotsClient
import WotsCore

/// How `wots inbox`, `listen` and `chat` show what happened besides messages: receipts, typing, timers, expiry.
actor ConversationDisplay {
    /// Where names come from: the contact book, read when needed (a contact pinned meanwhile is known).
    let store: LocalStore
    private var typingGeneration = 0

    init(store: LocalStore) { self.store = store }

    func name(_ token: Token) -> String {
        let nickname = (try? self.store.contactBook())?.contact(token: token)?.nickname
        return nickname.map { Terminal.safe($0.value) } ?? "token \(token)"
    }

    func show(_ event: ConversationEvent) {
        switch event {
        case .message(let message):
            self.clearTyping()
            Terminal.out(Terminal.describe(message))
        case .status(let keys, let status, _):
            let ids = keys.map { String($0.id.lowercasedString.prefix(8)) }.joined(separator: ", ")
            switch status {
            case .sent: Terminal.out("  ✓ sent (\(ids))")
            case .delivered: Terminal.out("  ✓✓ delivered (\(ids))")
            case .read: Terminal.out("  ✓✓ read (\(ids))")
            case .received: break
            }
        case .groupStatus(let deliveries, let status, let member):
            Terminal.out(Terminal.describe(deliveries, status, member: self.name(member)))
        case .typing(let peer, .started):
            self.typingGeneration += 1
            let generation = self.typingGeneration
            Self.showTyping("\(self.name(peer)) is typing…")
            Task {
                try? await Task.sleep(for: .seconds(6))
                self.clearTyping(ifStill: generation)
            }
        case .typing(_, .stopped):
            self.clearTyping()
        case .timer(let seconds, _, let setBy):
            let what = seconds == 0 ? "off" : "after " + Terminal.span(.seconds(Int64(seconds)))
            Terminal.out("disappearing messages: \(what) (set by \(self.name(setBy)))")
        case .profile(let peer, let avatar):
            Terminal.note("\(self.name(peer))'s avatar: \(Terminal.describe(avatar))")
        case .expired(let count):
            for _ in 0..<count { Terminal.out("a disappearing message expired") }
        }
    }

    private func clearTyping(ifStill generation: Int? = nil) {
        if let generation, generation != self.typingGeneration { return }
        if generation == nil { self.typingGeneration += 1 }
        Terminal.endProgress()
    }

    /// On a terminal, a status line on stderr that the next one overwrites; elsewhere one line.
    private static func showTyping(_ text: String) {
        if Terminal.stderrIsTerminal {
            Terminal.progress(text)
        } else {
            Terminal.note(text)
        }
    }
}
