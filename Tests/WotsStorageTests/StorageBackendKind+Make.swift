import Foundation
import WotsStorage

extension StorageBackendKind {
    /// Fresh, empty repositories of this kind. Call `tearDown` when done (`withBackend` does).
    func make() async throws -> StorageBackend {
        switch self {
        case .inMemory: InMemoryTestBackend.make()
        case .sqlite: try await SQLiteTestBackend.make()
        case .postgres: try await PostgresTestBackend.make()
        }
    }
}

/// Runs `body` with fresh repositories of `kind` and tears them down afterwards, also when `body` throws.
func withBackend(_ kind: StorageBackendKind, _ body: (StorageBackend) async throws -> Void) async throws {
    let backend = try await kind.make()
    do {
        try await body(backend)
    } catch {
        try? await backend.tearDown()
        throw error
    }
    try await backend.tearDown()
}
