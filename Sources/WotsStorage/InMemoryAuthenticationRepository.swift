public import Foundation
import Synchronization
public import WotsCore

/// An `AuthenticationRepository` held in memory, for tests and a single relay process.
public final class InMemoryAuthenticationRepository: AuthenticationRepository {
    private struct Session {
        var token: Token
        var expiresAt: Date
    }

    private struct State {
        var relayID: [UInt8]?
        var secrets: [String: [UInt8]] = [:]
        var challenges: [[UInt8]: Date] = [:]
        var sessions: [[UInt8]: Session] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty repository.
    public init() {}

    public func relayID(storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        self.state.withLock { state in
            if let existing = state.relayID { return existing }
            state.relayID = candidate
            return candidate
        }
    }

    public func relaySecret(named name: String, storingIfAbsent candidate: [UInt8]) async throws -> [UInt8] {
        self.state.withLock { state in
            if let existing = state.secrets[name] { return existing }
            state.secrets[name] = candidate
            return candidate
        }
    }

    public func useChallenge(_ nonce: [UInt8], expiresAt: Date) async throws -> Bool {
        self.state.withLock { state in
            guard state.challenges[nonce] == nil else { return false }
            state.challenges[nonce] = expiresAt
            return true
        }
    }

    public func storeSession(hash: [UInt8], token: Token, expiresAt: Date) async throws {
        self.state.withLock { $0.sessions[hash] = Session(token: token, expiresAt: expiresAt) }
    }

    public func session(hash: [UInt8], now: Date) async throws -> ActiveSession? {
        self.state.withLock { state in
            guard let session = state.sessions[hash], session.expiresAt > now else { return nil }
            return ActiveSession(token: session.token, expiresAt: session.expiresAt)
        }
    }

    public func deleteSessions(of token: Token) async throws {
        self.state.withLock { state in state.sessions = state.sessions.filter { $0.value.token != token } }
    }

    @discardableResult
    public func sweepExpired(now: Date) async throws -> Int {
        self.state.withLock { state in
            let challenges = state.challenges.count
            let sessions = state.sessions.count
            state.challenges = state.challenges.filter { $0.value > now }
            state.sessions = state.sessions.filter { $0.value.expiresAt > now }
            return challenges - state.challenges.count + sessions - state.sessions.count
        }
    }
}
