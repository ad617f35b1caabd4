import ArgumentParser
import Foundation
import WotsCore
import WotsRelay

/// How clients and operators reach the relay: TLS, the reverse proxies it trusts, the administration address.
struct TransportOptions: ParsableArguments {
    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "PEM certificate chain, leaf first: serve https:// and wss:// (needs --tls-key).",
            discussion: "Both files are read again on SIGHUP: new connections get the new certificate, open ones "
                + "stay. A pair that fails to load is logged and the previous one stays in use.",
            valueName: "FILE"
        )
    )
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "FILE"))
    var tlsKey: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy's address or range (repeatable): its X-Forwarded-For names the client.",
            discussion: "Rate limits then count the right-most address in X-Forwarded-For that is not a trusted "
                + "proxy. Requests from other peers are counted by their own address, whatever they send.",
            valueName: "CIDR"
        )
    )
    var trustedProxies: [String] = []

    @Option(
        name: .customLong("admin-address"),
        help: ArgumentHelp(
            "HOST:PORT for /metrics, /healthz and /readyz (plain HTTP), or none.",
            discussion:
                "Defaults to 127.0.0.1:9090 (as every option, also $WOTS_ADMIN_ADDRESS). Port 0 picks a free one. /metrics "
                + "is never on the public address; /healthz and /readyz are on both.",
            valueName: "ADDRESS"
        )
    )
    var adminAddress: String?

    /// Everything these flags say, checked; files are not read yet.
    func settings(publicHost: String, publicPort: Int) throws -> TransportSettings {
        let tls: TransportSettings.TLSFiles?
        switch (self.tlsCertificate, self.tlsKey) {
        case (nil, nil): tls = nil
        case (let certificate?, let key?): tls = .init(certificatePath: certificate, keyPath: key)
        case (_?, nil): throw WotsError(.invalidArgument, "--tls-cert needs --tls-key (the certificate's private key)")
        case (nil, _?): throw WotsError(.invalidArgument, "--tls-key needs --tls-cert (the key's certificate chain)")
        }
        let proxies = TrustedProxies(
            ranges: try self.trustedProxies.map { text in
                do {
                    return try AddressRange(text)
                } catch let error as WotsError {
                    throw WotsError(.invalidArgument, "--trusted-proxy: \(error.reason)")
                }
            }
        )
        let text = self.adminAddress ?? "127.0.0.1:9090"
        let administration = try AdministrationAddress.parse(text)
        if let administration, administration.port != 0, administration.port == publicPort,
            administration.host == publicHost
        {
            throw WotsError(
                .invalidArgument,
                "--admin-address \(text) is the public address: /metrics must not be public; choose another port"
            )
        }
        return TransportSettings(tls: tls, trustedProxies: proxies, administration: administration)
    }
}

/// What `TransportOptions` say, checked.
struct TransportSettings: Sendable {
    struct TLSFiles: Sendable {
        var certificatePath: String
        var keyPath: String
    }

    var tls: TLSFiles?
    var trustedProxies: TrustedProxies
    var administration: AdministrationAddress?
}

/// Where `/metrics`, `/healthz` and `/readyz` are served for the operator.
struct AdministrationAddress: Sendable, Hashable {
    var host: String
    var port: Int

    /// `HOST:PORT`, `[IPV6]:PORT`, or `none` (nil).
    /// - Throws: `invalid_argument` naming the text and the expected form.
    static func parse(_ text: String) throws -> AdministrationAddress? {
        if text == "none" { return nil }
        let invalid = WotsError(
            .invalidArgument,
            "--admin-address \"\(text.prefix(60))\" is not HOST:PORT (as 127.0.0.1:9090), [IPV6]:PORT or none"
        )
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw invalid }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("[") else { throw invalid }
        return AdministrationAddress(host: host, port: port)
    }
}
