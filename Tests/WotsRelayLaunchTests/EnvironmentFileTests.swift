import Testing
import WotsCore

@testable import WotsRelayLaunch

@Suite struct EnvironmentFileTests {
    @Test func readsKeysValuesCommentsAndQuotesAsSystemdDoes() throws {
        let text = """
            # the relay's settings
            ; also a comment
              WOTS_PORT = 8443  

            WOTS_HOST="0.0.0.0"
            WOTS_DATABASE='postgres://wots:p#ss "x"@db/wots'
            WOTS_LOG_LEVEL="say \\"hi\\" \\\\ \\$HOME"
            WOTS_TRUSTED_PROXY=10.0.0.0/8, 192.168.0.0/16 # not a comment
            WOTS_EMPTY=
            """
        let file = try EnvironmentFile.parse(text, path: "relay.env")
        #expect(
            file.entries == [
                .init(key: "WOTS_PORT", value: "8443", line: 3),
                .init(key: "WOTS_HOST", value: "0.0.0.0", line: 5),
                .init(key: "WOTS_DATABASE", value: "postgres://wots:p#ss \"x\"@db/wots", line: 6),
                .init(key: "WOTS_LOG_LEVEL", value: "say \"hi\" \\ $HOME", line: 7),
                .init(key: "WOTS_TRUSTED_PROXY", value: "10.0.0.0/8, 192.168.0.0/16 # not a comment", line: 8),
                .init(key: "WOTS_EMPTY", value: "", line: 9),
            ]
        )
    }

    @Test(
        arguments: [
            ("WOTS_PORT 8443", "is not KEY=VALUE"),
            ("9WOTS=1", "is not a variable name"),
            ("WOTS-PORT=1", "is not a variable name"),
            ("WOTS_HOST=\"0.0.0.0", "quote is not closed"),
            ("WOTS_HOST='a'b", "text after the closing"),
            ("WOTS_HOST=a\"b\"", "quotes must wrap the whole value"),
            ("WOTS_HOST=a \\", "continued lines are not supported"),
        ]
    )
    func aBadLineIsRefusedWithItsNumberAndRule(line: String, rule: String) {
        let error = #expect(throws: WotsError.self) {
            try EnvironmentFile.parse("# first\n\(line)\n", path: "/etc/wots/relay.env")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason.hasPrefix("/etc/wots/relay.env:2: ") == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains(rule) == true, "\(error?.reason ?? "")")
    }

    @Test func aMissingFileIsNamed() {
        let error = #expect(throws: WotsError.self) { try EnvironmentFile.read(path: "/nonexistent/relay.env") }
        #expect(error?.reason.contains("--config /nonexistent/relay.env: cannot read the file") == true)
    }
}
