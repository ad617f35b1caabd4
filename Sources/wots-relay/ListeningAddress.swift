import NIOCore
import NIOPosix
import WotsCore

/// Tries the listening address before anything else starts, so a taken port is reported, naming the address, before
/// the database is opened or migrated.
enum ListeningAddress {
    /// - Throws: `invalid_argument` saying which address could not be listened on and why.
    static func ensureAvailable(host: String, port: Int) async throws {
        guard port != 0 else { return }
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port)
                .get()
            try await channel.close().get()
        } catch let error as IOError {
            throw WotsError(.invalidArgument, "cannot listen on \(host):\(port): \(Self.reason(error))")
        } catch {
            throw WotsError(.invalidArgument, "cannot listen on \(host):\(port): \(error)")
        }
    }

    private static func reason(_ error: IOError) -> String {
        switch error.errnoCode {
        case 98: "address already in use (another relay or program listens there)"
        case 99: "the address is not on this machine"
        case 13: "permission denied (ports below 1024 need privileges)"
        default: "\(error)"
        }
    }
}
