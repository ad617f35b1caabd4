/// Saves a registration's public half and private half concurrently, and reports success only when both landed.
///
/// When either half fails, the half that landed is undone, `RegistrationFailed` is published and the first error is
/// rethrown, so there is never a public entry without its private part nor the reverse. Exactly one of
/// `RegistrationSaved` / `RegistrationFailed` is published per call. The relay pairs the directory with the
/// private-record repository; the CLI pairs the relay registration with its local key store.
public struct SaveCoordinator<PublicHalf: SaveParticipant, PrivateHalf: SaveParticipant>: Sendable {
    /// How often an undo is attempted before the failure is reported as unrecoverable.
    public static var undoAttempts: Int { 3 }

    private let publicHalf: PublicHalf
    private let privateHalf: PrivateHalf
    private let bus: EventBus
    private let onUndoFailure: @Sendable (String) -> Void

    /// - Parameter onUndoFailure: told, in one sentence, when a half could not be undone (the caller logs it);
    ///   the same sentence is part of the published `RegistrationFailed` reason.
    public init(
        publicHalf: PublicHalf,
        privateHalf: PrivateHalf,
        bus: EventBus,
        onUndoFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.publicHalf = publicHalf
        self.privateHalf = privateHalf
        self.bus = bus
        self.onUndoFailure = onUndoFailure
    }

    /// Writes both halves, waits for both, then publishes the outcome.
    /// - Throws: the error of the first half that failed (the public half's when both failed).
    public func save(
        token: Token,
        nickname: Nickname,
        publicItem: PublicHalf.Item,
        privateItem: PrivateHalf.Item
    ) async throws {
        async let publicResult = Self.attempt { try await self.publicHalf.save(publicItem) }
        async let privateResult = Self.attempt { try await self.privateHalf.save(privateItem) }
        let (publicOutcome, privateOutcome) = await (publicResult, privateResult)

        switch (publicOutcome, privateOutcome) {
        case (.success, .success):
            self.bus.publish(RegistrationSaved(token: token, nickname: nickname))
        case (.failure(let error), .success):
            let undoProblem = await self.undo("private") { try await self.privateHalf.undo(privateItem) }
            self.publishFailure(token: token, nickname: nickname, error: error, undoProblem: undoProblem)
            throw error
        case (.success, .failure(let error)):
            let undoProblem = await self.undo("public") { try await self.publicHalf.undo(publicItem) }
            self.publishFailure(token: token, nickname: nickname, error: error, undoProblem: undoProblem)
            throw error
        case (.failure(let error), .failure):
            self.publishFailure(token: token, nickname: nickname, error: error, undoProblem: nil)
            throw error
        }
    }

    private static func attempt(_ body: @Sendable () async throws -> Void) async -> Result<Void, any Error> {
        do {
            try await body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Runs an undo, retrying; returns a description of the last error when every attempt failed.
    private func undo(_ half: String, _ body: @Sendable () async throws -> Void) async -> String? {
        var lastError: (any Error)?
        for _ in 0..<Self.undoAttempts {
            do {
                try await body()
                return nil
            } catch {
                lastError = error
            }
        }
        let problem = "undoing the \(half) half failed: \(String(describing: lastError!))"
        self.onUndoFailure(problem)
        return problem
    }

    private func publishFailure(token: Token, nickname: Nickname, error: any Error, undoProblem: String?) {
        var reason = String(describing: error)
        if let undoProblem { reason += "; \(undoProblem)" }
        self.bus.publish(RegistrationFailed(token: token, nickname: nickname, reason: reason))
    }
}
