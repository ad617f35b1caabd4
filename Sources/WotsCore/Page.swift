/// One page of a keyset-paginated listing and the cursor of the next, nil on the last page.
public struct Page<Element: Sendable>: Sendable {
    public var entries: [Element]
    public var next: Cursor?

    public init(entries: [Element], next: Cursor?) {
        self.entries = entries
        self.next = next
    }
}

extension Page: Equatable where Element: Equatable {}
extension Page: Codable where Element: Codable {}
