import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import WotsCore

extension PostgresDatabase {
    /// Connects once, outside the pool, so a relay that cannot reach its database says why at start: refused,
    /// timed out, wrong password, no such database. Retries until `deadline` passes.
    /// - Throws: `storage_unavailable` naming the server (never the password) and the last cause.
    public func waitUntilReachable(within deadline: Duration, retryEvery pause: Duration = .milliseconds(500))
        async throws
    {
        let clock = ContinuousClock()
        let giveUp = clock.now + deadline
        while true {
            guard let cause = await self.connectOnce() else { return }
            guard clock.now + pause < giveUp else {
                throw WotsError(
                    .storageUnavailable,
                    "cannot reach PostgreSQL at \(self.configuration) within \(deadline): \(cause)"
                )
            }
            try await Task.sleep(for: pause)
        }
    }

    /// Opens and closes one connection outside the pool.
    /// - Returns: nil when it worked, else why not.
    func connectOnce() async -> String? {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try self.configuration.connectionConfiguration(),
                id: 0,
                logger: self.queryLogger
            )
            try? await connection.close()
            return nil
        } catch {
            return Self.explain(error)
        }
    }

    /// What went wrong with a connection, in words an operator acts on.
    static func explain(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if error.code == .server, let state = error.serverInfo?[.sqlState] {
                switch state {
                case "28P01", "28000": return "authentication failed (SQLSTATE \(state))"
                case "3D000": return "the database does not exist (SQLSTATE 3D000)"
                case "57P03": return "the server is starting up or shutting down (SQLSTATE 57P03)"
                default: return "the server refused (SQLSTATE \(state))"
                }
            }
            if let underlying = error.underlying { return Self.explain(underlying) }
            return "\(error.code)"
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first?.error { return Self.explain(first) }
            return error.dnsAAAAError.map(Self.explain) ?? error.dnsAError.map(Self.explain)
                ?? "no address to connect to"
        }
        if error is ChannelError { return "the connection timed out or closed" }
        return String(describing: type(of: error))
    }
}

extension PostgresDatabase.Configuration {
    /// The same server, for one connection outside the pool.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: self.host,
            port: self.port,
            username: self.username,
            password: self.password,
            database: self.database,
            tls: self.requiresTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable
        )
        configuration.options.connectTimeout = .init(self.connectTimeout)
        return configuration
    }
}
