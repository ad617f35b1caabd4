/// `GET /v1/directory`: one page ordered by nickname and the cursor of the next, null on the last page.
public struct DirectoryPageResponse: Sendable, Hashable, Codable {
    public var entries: [DirectoryEntry]
    public var next: String?

    public init(entries: [DirectoryEntry], next: String?) {
        self.entries = entries
        self.next = next
    }
}
