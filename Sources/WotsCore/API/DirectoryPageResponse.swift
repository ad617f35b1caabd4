/// `GET /v1/directory`: one page ordered by nickname and the cursor of the next, null on the last page.
public struct DirectoryPageResponse: Sendable, Hashable, Codable {
    public var entries: [DirectoryEntry]
    public var next: String?

    public init(entries: [DirectoryEntry], next: String?) {
        self.entries = entries
        self.next = next
    }

    private enum CodingKeys: String, CodingKey {
        case entries, next
    }

    /// Writes `"next": null` on the last page rather than leaving the key out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.entries, forKey: .entries)
        try container.encode(self.next, forKey: .next)
    }
}
