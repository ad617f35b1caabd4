import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WotsCore
import WotsRelay

/// The relay serves the browser client's files at `/` with a strict policy, and the API beside it is unchanged.
@Suite struct WebClientRouteTests {
    static let policy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    static func clientFolder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wots-web-\(UUID().uuidString)")
        for folder in ["js/views", "test", "css"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder),
                withIntermediateDirectories: true
            )
        }
        let files = [
            "index.html": "<!doctype html><script type=\"module\" src=\"js/app.js\"></script>",
            "js/app.js": "import './views/chat.js';", "js/views/chat.js": "export {};",
            "css/app.css": "body {}", "test/secret.test.mjs": "not served",
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: root.appendingPathComponent(name))
        }
        return root
    }

    static func relay(web: Bool) async throws -> RelayHarness {
        var configuration = RelayHarness.testConfiguration
        if web { configuration.webClient = try WebClient.load(from: try Self.clientFolder()) }
        return try await RelayHarness.make(configuration: configuration)
    }

    @Test func theIndexComesWithAStrictPolicyAndNoSniffing() async throws {
        try await Self.relay(web: true).routerApplication.test(.router) { client in
            // The router test names the authority `localhost`; a real HTTP/1.1 request's Host header becomes it.
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[Self.contentTypeOptions] == "nosniff")
            #expect(response.headers[.cacheControl] == "no-cache")
            let policy = try #require(response.headers[Self.policy])
            #expect(policy.contains("default-src 'self'"))
            #expect(policy.contains("script-src 'self'"))
            #expect(policy.contains("connect-src 'self' ws://localhost wss://localhost"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe"), "no unsafe-inline or unsafe-eval anywhere")
            #expect(String(buffer: response.body).contains("js/app.js"))
        }
    }

    @Test func aFileIsRevalidatedByItsContentHash() async throws {
        try await Self.relay(web: true).routerApplication.test(.router) { client in
            let first = try await client.execute(uri: "/js/views/chat.js", method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "text/javascript; charset=utf-8")
            let tag = try #require(first.headers[.eTag])
            #expect(tag.count == 66, "a quoted hex SHA-256")
            let again = try await client.execute(uri: "/js/views/chat.js", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            let other = try await client.execute(uri: "/js/app.js", method: .get, headers: [.ifNoneMatch: tag])
            #expect(other.status == .ok, "another file's tag does not match")
        }
    }

    @Test func onlyTheClientFoldersAreServedAndTheAPIIsUnaffected() async throws {
        try await Self.relay(web: true).routerApplication.test(.router) { client in
            #expect(try await client.execute(uri: "/test/secret.test.mjs", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/js/../test/secret.test.mjs", method: .get).status == .notFound)
            let identity = try await client.request("/v1/relay", method: .get)
            #expect(identity.status == .ok)
            #expect(identity.headers[Self.policy] == nil, "API responses are not changed")
            #expect(try await client.request("/healthz", method: .get).status == .ok)
            #expect(try await client.request("/", method: .post).status != .ok, "only GET and HEAD serve files")
        }
    }

    @Test func withoutTheClientSlashIsNotFound() async throws {
        try await Self.relay(web: false).routerApplication.test(.router) { client in
            let index = try await client.execute(uri: "/", method: .get)
            #expect(index.status == .notFound)
            let identity = try await client.request("/v1/relay", method: .get)
            #expect(identity.status == .ok)
        }
    }

    @Test func aFolderWithoutAnIndexIsRefused() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("wots-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: WotsError(.invalidArgument, "")) { try WebClient.load(from: empty) }
    }
}
