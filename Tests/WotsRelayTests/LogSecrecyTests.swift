import Foundation
import Testing
import WotsCore
import WotsTesting

/// No log level may carry a session or an account token: the real binary at `--log-level trace`, a whole client
/// conversation through it, then its log read for any fragment of them.
@Suite(.serialized) struct LogSecrecyTests {
    @Test func aTraceLogHoldsNoFragmentOfASessionOrAToken() async throws {
        let folder = try RelayProcessTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logFile = folder.appendingPathComponent("relay.log")
        let relay = try await RelayProcess.start(
            database: "sqlite:\(folder.path)/relay.sqlite",
            logFile: logFile,
            extraArguments: ["--log-level", "trace"]
        )
        let client = RelayProcessTests()
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        let aliceSession = try await client.registerAndLogin(alice, on: relay)
        let bobSession = try await client.registerAndLogin(bob, on: relay)

        let envelope = try seal("hello over a traced relay", from: alice, to: bob)
        let (sent, _) = try await relay.request(
            "/v1/messages",
            method: "POST",
            session: aliceSession,
            body: try WireCoding.makeEncoder().encode(envelope)
        )
        #expect(sent == 202 || sent == 201 || sent == 200)
        let (mailbox, _) = try await relay.request("/v1/messages?after=0", session: bobSession)
        #expect(mailbox == 200)

        let byHeader = try await TestSocket.connect(port: relay.port, headerSession: bobSession)
        #expect(await byHeader.next().frame == .ready(ref: nil, token: bob.token))
        #expect(await byHeader.next().frame?.deliveredMessage != nil)
        await byHeader.close()
        let byFrame = try await TestSocket.connect(port: relay.port)
        try await byFrame.send(.auth(session: aliceSession))
        #expect(await byFrame.next().frame == .ready(ref: nil, token: alice.token))
        try await byFrame.send(.send(try seal("and live", from: alice, to: bob)), ref: "s")
        #expect(await byFrame.next().frame != nil)
        await byFrame.close()
        #expect(await relay.terminate() == 0)

        let log = try String(contentsOf: logFile, encoding: .utf8)
        #expect(log.contains("stream opened"), "the relay did not log at its most verbose")
        let texts = [aliceSession, bobSession, alice.token.description, bob.token.description]
        let rawTokens = [alice.token.bytes, bob.token.bytes]
        for secret in texts {
            let fragment = Self.firstFragment(of: Array(secret), length: 12, in: log) { String($0) }
            #expect(fragment == nil, "a session or token in the log: \(fragment ?? "")")
        }
        // Libraries log frames and buffers as hex: 6 bytes of a session's or token's text, or of a raw token.
        for bytes in texts.map({ Array($0.utf8) }) + rawTokens {
            for separator in ["", " "] {
                let hex = Self.firstFragment(of: bytes, length: 6, in: log) { window in
                    window.map { String(format: "%02x", $0) }.joined(separator: separator)
                }
                #expect(hex == nil, "hex of a session or token in the log: \(hex ?? "")")
            }
        }
        for bytes in rawTokens {
            #expect(!log.contains(Data(bytes).base64EncodedString()))
        }
    }

    /// The first `length`-element window of `secret` whose rendering is found in `text`.
    static func firstFragment<Element>(
        of secret: [Element],
        length: Int,
        in text: String,
        rendered render: ([Element]) -> String
    ) -> String? {
        guard secret.count >= length else { return nil }
        // Byte search: String.contains on a trace log of megabytes is Unicode-aware and slow enough in a debug build
        // to starve the tests running beside this one.
        let haystack = Data(text.utf8)
        for start in 0...(secret.count - length) {
            let fragment = render(Array(secret[start..<(start + length)]))
            if haystack.range(of: Data(fragment.utf8)) != nil { return fragment }
        }
        return nil
    }
}
