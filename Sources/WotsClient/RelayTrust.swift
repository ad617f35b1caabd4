public import AsyncHTTPClient
import Foundation
import NIOSSL
import Synchronization
import WotsCore

/// Which certificate authorities an `https://` or `wss://` relay may be signed by: the system's, plus those of
/// `--ca-file` (a private CA, a self-signed test relay).
public struct RelayTrust: Sendable {
    /// The file the extra authorities came from; nil when only the system's are trusted.
    public let caFile: String?
    let authorities: [NIOSSLCertificate]

    /// The system trust store only.
    public static let system = RelayTrust(caFile: nil, authorities: [])

    private init(caFile: String?, authorities: [NIOSSLCertificate]) {
        self.caFile = caFile
        self.authorities = authorities
    }

    /// The system trust store plus every certificate in a PEM file.
    /// - Throws: `invalid_input` naming the file when it is missing, unreadable or holds no PEM certificate.
    public init(caFile: String) throws {
        guard FileManager.default.isReadableFile(atPath: caFile) else {
            let problem = FileManager.default.fileExists(atPath: caFile) ? "cannot be read" : "does not exist"
            throw WotsError(.invalidInput, "CA file \(caFile) \(problem)")
        }
        let authorities = try? NIOSSLCertificate.fromPEMFile(caFile)
        guard let authorities, !authorities.isEmpty else {
            throw WotsError(.invalidInput, "CA file \(caFile) holds no PEM certificate")
        }
        self.init(caFile: caFile, authorities: authorities)
    }

    /// The client TLS configuration: full verification (chain and host name), TLS 1.2 or later.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if !self.authorities.isEmpty {
            configuration.additionalTrustRoots = [.certificates(self.authorities)]
        }
        return configuration
    }

    /// One HTTP client per CA file for the life of the process, like `RelayClient.sharedHTTPClient`.
    public var sharedHTTPClient: HTTPClient {
        guard let caFile = self.caFile else { return RelayClient.sharedHTTPClient }
        return Self.clients.withLock { clients in
            if let client = clients[caFile] { return client }
            var configuration = RelayClient.httpClientConfiguration
            configuration.tlsConfiguration = self.tlsConfiguration
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[caFile] = client
            return client
        }
    }

    private static let clients = Mutex<[String: HTTPClient]>([:])
}
