/// How many directory entries one page may hold: 1 to 100, a hard limit.
public struct PageLimit: Sendable, Hashable {
    public static let maximum = 100
    public static let allowed = 1...maximum

    public let value: Int

    /// - Throws: `WotsError.invalidPageLimit` saying the allowed range.
    public init(_ value: Int) throws {
        guard Self.allowed.contains(value) else {
            throw WotsError(.invalidPageLimit, "limit \(value) is out of range (1–\(Self.maximum))")
        }
        self.value = value
    }

    public static let max = try! PageLimit(maximum)
}
