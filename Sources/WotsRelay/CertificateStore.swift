public import Foundation
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import Synchronization
import WotsCore

/// The relay's TLS certificate chain and private key, read from PEM files and read again by `reload()`.
///
/// Every handshake asks the store for the current pair (a NIOSSL context callback), so handshakes after a reload
/// present the new certificate while connections already open keep theirs.
public final class CertificateStore: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<Identity>

    struct Identity: Sendable {
        var chain: [NIOSSLCertificate]
        var key: NIOSSLPrivateKey
    }

    /// Reads and checks the pair.
    /// - Throws: `invalid_argument` naming the file and what is wrong with it (missing, not PEM, the key does not
    ///   belong to the certificate).
    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.current = Mutex(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// Reads both files again; new handshakes use them. On failure the previous pair stays in use.
    /// - Returns: what is served now.
    /// - Throws: as `init`.
    @discardableResult
    public func reload() throws -> CertificateSummary {
        let identity = try Self.load(certificatePath: self.certificatePath, keyPath: self.keyPath)
        self.current.withLock { $0 = identity }
        return CertificateSummary(identity.chain[0])
    }

    /// The certificate served now.
    public var summary: CertificateSummary {
        CertificateSummary(self.current.withLock { $0.chain[0] })
    }

    /// A server configuration (TLS 1.2 or later) whose certificate and key come from this store at each handshake.
    var serverConfiguration: TLSConfiguration {
        let identity = self.current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: identity.chain.map { .certificate($0) },
            privateKey: .privateKey(identity.key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.sslContextCallback = { _, promise in
            let identity = self.current.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = identity.chain.map { .certificate($0) }
            override.privateKey = .privateKey(identity.key)
            promise.succeed(override)
        }
        return configuration
    }

    private static func load(certificatePath: String, keyPath: String) throws -> Identity {
        for (kind, path) in [("certificate", certificatePath), ("key", keyPath)] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                let problem = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
                throw WotsError(.invalidArgument, "TLS \(kind) file \(path) \(problem)")
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw WotsError(.invalidArgument, "TLS certificate file \(certificatePath) is not a PEM certificate chain")
        }
        guard !chain.isEmpty else {
            throw WotsError(.invalidArgument, "TLS certificate file \(certificatePath) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw WotsError(
                .invalidArgument,
                "TLS key file \(keyPath) is not an unencrypted PEM private key (RSA, EC or PKCS#8)"
            )
        }
        do {
            // BoringSSL refuses a key that does not match the leaf certificate's public key.
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) },
                    privateKey: .privateKey(key)
                )
            )
        } catch {
            throw WotsError(
                .invalidArgument,
                "TLS key file \(keyPath) does not belong to the certificate in \(certificatePath)"
            )
        }
        return Identity(chain: chain, key: key)
    }
}

/// What a log line says about a served certificate: its serial number and when it expires.
public struct CertificateSummary: Sendable, CustomStringConvertible {
    /// The serial number in upper-case hexadecimal.
    public let serial: String
    public let notValidAfter: Date

    init(_ certificate: NIOSSLCertificate) {
        self.serial = certificate.serialNumber.map { String(format: "%02X", $0) }.joined()
        self.notValidAfter = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
    }

    public var description: String {
        "serial \(self.serial), valid until \(ISO8601DateFormatter().string(from: self.notValidAfter))"
    }
}

extension ServerChildChannel {
    /// This channel behind Hummingbird's TLS channel with the store's certificate, or as it is without a store.
    func secured(by store: CertificateStore?) throws -> any ServerChildChannel {
        guard let store else { return self }
        return try TLSChannel(self, tlsConfiguration: store.serverConfiguration)
    }
}
