import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WotsCore
import WotsRelay
import WotsStorage
import WotsTesting

@Suite struct DirectoryRouteTests {
    /// Entries with distinct nicknames and tokens; the keys are alice's, which the directory does not check.
    static func fill(_ directory: any DirectoryRepository, count: Int) async throws {
        for index in 0..<count {
            var token = Array(repeating: UInt8(0), count: 16)
            token[0] = UInt8(index >> 8)
            token[1] = UInt8(index & 0xFF)
            try await directory.create(
                DirectoryEntry(
                    token: try Token(bytes: token),
                    nickname: try Nickname(String(format: "user%04d", index)),
                    publicKeys: TestIdentities.alice.publicKeys,
                    fingerprint: TestIdentities.alice.fingerprint,
                    registeredAt: Date()
                )
            )
        }
    }

    @Test func followingCursorsListsEveryEntryOnceInNicknameOrder() async throws {
        let harness = try await RelayHarness.make()
        try await Self.fill(harness.relay.storage.directory, count: 250)
        try await harness.routerApplication.test(.router) { client in
            var nicknames: [String] = []
            var pages = 0
            var next: String? = nil
            repeat {
                let uri = "/v1/directory?limit=100" + (next.map { "&after=\($0)" } ?? "")
                let page = try await client.request(uri, method: .get).decode(DirectoryPageResponse.self)
                nicknames += page.entries.map(\.nickname.value)
                next = page.next
                pages += 1
            } while next != nil
            #expect(pages == 3)
            #expect(nicknames == (0..<250).map { String(format: "user%04d", $0) })
        }
    }

    @Test func theLastPageSaysNextIsNull() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/v1/directory", method: .get)
            #expect(String(buffer: response.body) == "{\"entries\":[],\"next\":null}")
        }
    }

    @Test(arguments: ["101", "0", "-3", "many"])
    func aLimitOutside1To100IsRefusedNamingTheMaximum(limit: String) async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/v1/directory?limit=\(limit)", method: .get)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .invalidPageLimit)
            #expect(response.errorMessage?.contains("100") == true)
        }
    }

    @Test func aForgedCursorIsRefused() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/v1/directory?after=not-a-cursor", method: .get)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == .invalidCursor)
        }
    }

    @Test func anUnknownNicknameIs404() async throws {
        let harness = try await RelayHarness.make()
        try await harness.routerApplication.test(.router) { client in
            let response = try await client.request("/v1/directory/nobody", method: .get)
            #expect(response.status == .notFound)
            #expect(response.errorCode == .unknownNickname)
        }
    }
}
