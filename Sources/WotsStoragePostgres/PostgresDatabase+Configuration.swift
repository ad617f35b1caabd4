import Foundation
import PostgresNIO
import WotsCore
import WotsStorage

extension PostgresDatabase {
    /// Where a PostgreSQL database is and how to connect to it.
    ///
    /// `description` leaves the password out.
    public struct Configuration: Sendable, CustomStringConvertible {
        public var host: String
        /// Default 5432.
        public var port: Int
        public var username: String
        /// Nil for trust or peer authentication.
        public var password: String?
        public var database: String
        /// Refuse to connect without TLS (`sslmode=require`). Default false: no TLS.
        public var requiresTLS: Bool
        /// Most connections the pool opens. Default 20.
        public var maximumConnections: Int
        /// Longest any operation may take, waiting for a connection included, before it fails with
        /// `storage_unavailable`. Default 5 seconds.
        public var operationTimeout: Duration = .seconds(5)
        /// Longest opening one connection may take. Default 3 seconds.
        public var connectTimeout: Duration = .seconds(3)
        /// Longest applying the migrations may take, at start. Default 2 minutes.
        public var migrationTimeout: Duration = .seconds(120)

        /// - Parameters:
        ///   - host: server name or address.
        ///   - port: TCP port, default 5432.
        ///   - username: role to connect as.
        ///   - password: nil for trust or peer authentication.
        ///   - database: database name.
        ///   - requiresTLS: connect over TLS only; default false.
        ///   - maximumConnections: pool size; default 20.
        public init(
            host: String,
            port: Int = 5432,
            username: String,
            password: String? = nil,
            database: String,
            requiresTLS: Bool = false,
            maximumConnections: Int = 20
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.requiresTLS = requiresTLS
            self.maximumConnections = maximumConnections
        }

        /// Parses `postgres://user[:password]@host[:port]/database[?sslmode=require]` (`postgresql://` too).
        ///
        /// `sslmode=require`, `verify-ca` or `verify-full` turn TLS on; anything else, or no `sslmode`, leaves it off.
        /// - Throws: `WotsError.invalidArgument` saying which part is missing; the URL itself is not repeated,
        ///   since it may hold a password.
        public init(url: String) throws {
            let form = "postgres://user[:password]@host[:port]/database"
            guard let components = URLComponents(string: url),
                let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
            else {
                throw WotsError(.invalidArgument, "database URL is not of the form \(form)")
            }
            guard let host = components.host, !host.isEmpty else {
                throw WotsError(.invalidArgument, "database URL has no host (\(form))")
            }
            guard let username = components.user, !username.isEmpty else {
                throw WotsError(.invalidArgument, "database URL has no user name (\(form))")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty, !database.contains("/") else {
                throw WotsError(.invalidArgument, "database URL names no database (\(form))")
            }
            let sslMode = components.queryItems?.last(where: { $0.name == "sslmode" })?.value?.lowercased()
            self.init(
                host: host,
                port: components.port ?? 5432,
                username: username,
                password: components.password,
                database: database,
                requiresTLS: ["require", "verify-ca", "verify-full"].contains(sslMode ?? "")
            )
        }

        /// The URL without its password.
        public var description: String {
            "postgres://\(self.username)@\(self.host):\(self.port)/\(self.database)"
                + (self.requiresTLS ? "?sslmode=require" : "")
        }

        var clientConfiguration: PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(
                host: self.host,
                port: self.port,
                username: self.username,
                password: self.password,
                database: self.database,
                tls: self.requiresTLS ? .require(.makeClientConfiguration()) : .disable
            )
            configuration.options.maximumConnections = max(1, self.maximumConnections)
            configuration.options.connectTimeout = self.connectTimeout
            return configuration
        }
    }
}
