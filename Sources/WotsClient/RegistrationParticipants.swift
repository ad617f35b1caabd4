import WotsCore

/// The public half of a CLI registration: the relay's directory entry and private record.
///
/// Undo logs in with the new identity and deletes the account again.
struct RelayRegistration: SaveParticipant {
    struct Item: Sendable {
        var request: RegistrationRequest
    }

    let relay: RelayClient
    let registered: Box<DirectoryEntry>

    func save(_ item: Item) async throws {
        let entry = try await self.relay.register(item.request)
        self.registered.set(entry)
    }

    func undo(_ item: Item) async throws {
        try await self.relay.deleteAccount()
    }
}

/// The private half of a CLI registration: the sealed private record and profile in the local store.
struct LocalKeyStore: SaveParticipant {
    typealias Item = LocalAccount

    let store: LocalStore

    func save(_ item: LocalAccount) async throws {
        try self.store.create(item)
    }

    func undo(_ item: LocalAccount) async throws {
        try self.store.removeAccount()
    }
}
