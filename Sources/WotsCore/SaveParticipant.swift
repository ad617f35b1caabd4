/// One half of a two-part save: something that can write an item and take that write back.
public protocol SaveParticipant: Sendable {
    associatedtype Item: Sendable

    /// Writes the item durably; throws when it did not land.
    func save(_ item: Item) async throws

    /// Removes what `save` wrote. Called only after `save` succeeded and the other half failed.
    func undo(_ item: Item) async throws
}
