public import WotsCore
public import WotsCrypto

extension Messenger {
    /// Every directory entry, fetched page by page following the relay's cursors until the last page.
    /// - Parameters:
    ///   - pageSize: entries per request, 1–100. Default 100.
    ///   - progress: called after each page with the number of entries so far.
    /// - Throws: `WotsError.invalidResponse` when the relay's cursors go in circles.
    public func directory(
        pageSize: Int = PageLimit.maximum,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        var cursor: String?
        var seenCursors: Set<String> = []
        repeat {
            let page = try await self.relay.directoryPage(limit: pageSize, after: cursor)
            entries.append(contentsOf: page.entries)
            progress(entries.count)
            cursor = page.next
            if let next = cursor {
                guard !page.entries.isEmpty, seenCursors.insert(next).inserted else {
                    throw WotsError(.invalidResponse, "\(self.relay.baseURL) repeated directory cursor \(next)")
                }
            }
        } while cursor != nil
        return entries
    }

    /// One entry, proven by the relay's transparency log, and what the contact book says about it.
    public func show(_ nickname: Nickname) async throws -> (entry: DirectoryEntry, verdict: ContactBook.Verdict) {
        let entry = try await self.verifiedEntry(nickname: nickname)
        return (entry, try self.store.contactBook().verdict(for: entry))
    }

    /// The safety number between this account and `nickname`, pinning their keys on first use.
    /// - Returns: the entry, the safety number, and the contact book's verdict before pinning.
    public func verify(_ nickname: Nickname) async throws -> (
        entry: DirectoryEntry, safetyNumber: SafetyNumber, verdict: ContactBook.Verdict
    ) {
        let profile = try self.store.account().profile
        let entry = try await self.verifiedEntry(nickname: nickname)
        var book = try self.store.contactBook()
        let verdict = book.verdict(for: entry)
        if case .unknown = verdict {
            book.pin(entry)
            try self.store.save(book)
        }
        return (entry, SafetyNumber(profile.publicKeys, entry.publicKeys), verdict)
    }

    /// Accepts `nickname`'s current keys as published, replacing the pinned ones.
    /// - Returns: the entry now trusted and the contact it replaced, if any.
    public func trust(_ nickname: Nickname) async throws -> (entry: DirectoryEntry, previous: Contact?) {
        let entry = try await self.verifiedEntry(nickname: nickname)
        var book = try self.store.contactBook()
        let previous = book.contact(named: nickname) ?? book.contact(token: entry.token)
        book.pin(entry)
        try self.store.save(book)
        return (entry, previous)
    }

    /// Refuses an entry whose fingerprint is not that of its keys: the relay cannot pass off other keys under a
    /// fingerprint the user compared.
    static func checkConsistent(_ entry: DirectoryEntry, relay: String) throws {
        do {
            try entry.publicKeys.validate()
        } catch {
            throw WotsError(.invalidResponse, "\(relay) published unusable keys for \(entry.nickname): \(error)")
        }
        guard entry.publicKeys.fingerprint == entry.fingerprint else {
            throw WotsError(
                .invalidResponse,
                "\(relay) published a fingerprint for \(entry.nickname) that does not match the keys"
            )
        }
    }
}
