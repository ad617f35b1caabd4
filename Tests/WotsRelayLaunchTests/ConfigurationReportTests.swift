import Testing

@testable import WotsRelayLaunch

@Suite struct ConfigurationReportTests {
    @Test func theDatabasePasswordIsHiddenAndEverySourceIsNamed() throws {
        let sources = try ServeConfigurationSources.resolve(
            arguments: ["--port", "8443", "--config", "/etc/wots/relay.env"],
            environment: ["WOTS_DATABASE_URL": "postgres://wots:hunter2@db.internal:5432/wots", "WOTS_HOME": "/x"],
            options: ServeConfigurationSourcesTests.options + [ServeOption(name: "tls-cert", kind: .option)],
            readFile: { path in try EnvironmentFile.parse("WOTS_LOG_LEVEL=debug\n", path: path) }
        )
        let text = ConfigurationReport(sources: sources).text
        #expect(!text.contains("hunter2"))
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines.contains("--database postgres://wots:********@db.internal:5432/wots environment WOTS_DATABASE_URL")
        )
        #expect(lines.contains("--port 8443 flag"))
        #expect(lines.contains("--log-level debug file /etc/wots/relay.env:1 WOTS_LOG_LEVEL"))
        #expect(lines.contains("--host 127.0.0.1 default"))
        #expect(lines.contains("--tls-cert (unset) default"))
        #expect(lines.contains("ignored environment (not serve settings): WOTS_HOME"))
    }

    @Test(
        arguments: [
            ("database", "postgres://u:secret@h/db", "postgres://u:********@h/db"),
            ("database", "postgres://u@h/db", "postgres://u@h/db"),
            ("database", "postgres://u:p@ss@h/db?sslmode=require", "postgres://u:********@h/db?sslmode=require"),
            ("database", "sqlite:/var/lib/wots/relay.sqlite", "sqlite:/var/lib/wots/relay.sqlite"),
            ("admin-token", "abc", "********"),
            ("database-password", "abc", "********"),
            ("tls-key", "/etc/wots/key.pem", "/etc/wots/key.pem"),
        ]
    )
    func secretsAreMaskedAndPathsAreNot(option: String, value: String, shown: String) {
        #expect(SecretMask.masked(value, optionName: option) == shown)
    }
}
