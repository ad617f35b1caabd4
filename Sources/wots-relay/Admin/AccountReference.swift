import WotsCore
import WotsRelay
import WotsStorage

/// How the operator names an account on the command line: its nickname, or its token.
struct AccountReference: Sendable {
    let text: String

    /// The live account named; `unknown_nickname` / `unknown_token` when there is none.
    func entry(in storage: RelayStorage) async throws -> DirectoryEntry {
        if let token = try? Token(self.text) {
            if let entry = try await storage.directory.entry(token: token) { return entry }
        }
        guard let nickname = try? Nickname(naming: self.text) else {
            throw WotsError(.unknownNickname, "\"\(self.text.prefix(40))\" is neither a nickname nor a token")
        }
        guard let entry = try await storage.directory.entry(nickname: nickname) else {
            throw WotsError(.unknownNickname, "no account is called \"\(nickname)\"")
        }
        return entry
    }
}
