import Testing
import WotsCore

@testable import WotsRelayLaunch

@Suite struct ServeConfigurationSourcesTests {
    static func file(_ text: String) -> (String) throws -> EnvironmentFile {
        { path in try EnvironmentFile.parse(text, path: path) }
    }

    /// Options as `serve` declares them (the real list comes from the parser; `ServeCheckConfigTests` runs it).
    static let options = [
        ServeOption(name: "host", kind: .option, defaultValue: "127.0.0.1"),
        ServeOption(name: "port", kind: .option, defaultValue: "8080"),
        ServeOption(name: "database", kind: .option),
        ServeOption(name: "send-rate", kind: .option, defaultValue: "50.0"),
        ServeOption(name: "drain-timeout", kind: .option, defaultValue: "8s"),
        ServeOption(name: "log-level", kind: .option, defaultValue: "info"),
        ServeOption(name: "trusted-proxy", kind: .option, isRepeating: true),
        ServeOption(name: "admin-address", kind: .option),
    ]

    static func named(_ name: String) -> ServeOption {
        Self.options.first { $0.name == name }!
    }

    static func resolve(
        _ arguments: [String],
        environment: [String: String],
        file: String = ""
    ) throws -> ServeConfigurationSources {
        try ServeConfigurationSources.resolve(
            arguments: arguments,
            environment: environment,
            options: Self.options,
            readFile: Self.file(file)
        )
    }

    func setting(_ name: String, in sources: ServeConfigurationSources) throws -> ResolvedSetting {
        try #require(sources.settings.first { $0.option.name == name })
    }

    @Test func theDumpedHelpOfTheParserGivesEachOptionItsVariable() {
        let dump = """
            {"command": {"commandName": "serve", "arguments": [
              {"kind": "option", "names": [{"kind": "long", "name": "tls-cert"}], "isRepeating": false,
               "isOptional": true, "shouldDisplay": true, "parsingStrategy": "default"},
              {"kind": "option", "names": [{"kind": "long", "name": "config"}], "isRepeating": false,
               "isOptional": true, "shouldDisplay": true, "parsingStrategy": "default"},
              {"kind": "flag", "names": [{"kind": "long", "name": "color"}, {"kind": "long", "name": "no-color"}],
               "isRepeating": false, "isOptional": true, "shouldDisplay": true, "parsingStrategy": "default"},
              {"kind": "flag", "names": [{"kind": "short", "name": "h"}, {"kind": "long", "name": "help"}],
               "isRepeating": false, "isOptional": true, "shouldDisplay": true, "parsingStrategy": "default"}
            ]}}
            """
        let options = ServeOption.parse(dumpHelp: dump)
        #expect(options.map(\.environmentKey) == ["WOTS_TLS_CERT", "WOTS_COLOR"])
        #expect(options.last?.inversion == "no-color")
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws {
        let sources = try Self.resolve(
            ["--port", "1111", "--config", "relay.env"],
            environment: ["WOTS_PORT": "2222", "WOTS_HOST": "0.0.0.0"],
            file: "WOTS_PORT=3333\nWOTS_HOST=10.0.0.1\nWOTS_LOG_LEVEL=debug\n"
        )
        #expect(
            try self.setting("port", in: sources) == .init(option: Self.named("port"), values: ["1111"], source: .flag)
        )
        #expect(try self.setting("host", in: sources).source == .environment(key: "WOTS_HOST"))
        #expect(try self.setting("host", in: sources).values == ["0.0.0.0"])
        #expect(
            try self.setting("log-level", in: sources).source
                == .file(path: "relay.env", line: 3, key: "WOTS_LOG_LEVEL")
        )
        #expect(
            try self.setting("drain-timeout", in: sources)
                == .init(option: Self.named("drain-timeout"), values: ["8s"], source: .default)
        )
        #expect(
            sources.arguments == ["--port", "1111", "--config", "relay.env", "--host=0.0.0.0", "--log-level=debug"]
        )
    }

    @Test func aFlagGivenInTheEqualsFormAlsoWins() throws {
        let sources = try Self.resolve(["--send-rate=3"], environment: ["WOTS_SEND_RATE": "7.5"])
        #expect(try self.setting("send-rate", in: sources).values == ["3"])
        #expect(sources.arguments == ["--send-rate=3"])
    }

    @Test func theOldDatabaseVariableStillWorksAndTheNewNameWins() throws {
        let old = try Self.resolve([], environment: ["WOTS_DATABASE_URL": "sqlite:/tmp/a.sqlite"])
        #expect(old.arguments == ["--database=sqlite:/tmp/a.sqlite"])
        let both = try Self.resolve(
            [],
            environment: ["WOTS_DATABASE_URL": "sqlite:/tmp/a.sqlite", "WOTS_DATABASE": "sqlite:/tmp/b.sqlite"]
        )
        #expect(both.arguments == ["--database=sqlite:/tmp/b.sqlite"])
        let inFile = try Self.resolve(
            ["--config", "f"],
            environment: [:],
            file: "WOTS_DATABASE=sqlite:/b\nWOTS_DATABASE_URL=sqlite:/a\n"
        )
        #expect(inFile.arguments.last == "--database=sqlite:/b")
    }

    @Test func aRepeatableOptionTakesACommaSeparatedList() throws {
        let sources = try Self.resolve([], environment: ["WOTS_TRUSTED_PROXY": "10.0.0.0/8, 192.168.1.1,"])
        #expect(sources.arguments == ["--trusted-proxy=10.0.0.0/8", "--trusted-proxy=192.168.1.1"])
    }

    @Test func anUnknownWotsKeyInTheFileIsAnErrorNamingKeyAndLine() {
        let error = #expect(throws: WotsError.self) {
            try Self.resolve(
                ["--config=/etc/wots/relay.env"],
                environment: [:],
                file: "WOTS_PORT=1\n\nWOTS_SEND_RAET=5\n"
            )
        }
        #expect(error?.reason.hasPrefix("/etc/wots/relay.env:3: WOTS_SEND_RAET is not a serve setting") == true)
    }

    @Test func theClientsVariablesInTheEnvironmentAreIgnoredAndListed() throws {
        let sources = try Self.resolve(
            ["--config", "relay.env"],
            environment: ["WOTS_HOME": "/home/a/.wots", "WOTS_CA_FILE": "/ca.pem", "HOME": "/root"],
            file: "TZ=UTC\nWOTS_PORT=9\n"
        )
        #expect(sources.ignoredEnvironment == ["WOTS_CA_FILE", "WOTS_HOME"])
        #expect(sources.ignoredFileKeys == ["TZ"])
        #expect(sources.arguments == ["--config", "relay.env", "--port=9"])
    }

    @Test func anEmptyValueCountsAsUnset() throws {
        let sources = try Self.resolve(
            ["--config", "relay.env"],
            environment: ["WOTS_ADMIN_ADDRESS": ""],
            file: "WOTS_ADMIN_ADDRESS=127.0.0.1:9191\nWOTS_HOST=\n"
        )
        #expect(try self.setting("admin-address", in: sources).values == ["127.0.0.1:9191"])
        #expect(try self.setting("host", in: sources).source == .default)
    }

    static let switches = [
        ServeOption(name: "quiet", kind: .flag),
        ServeOption(name: "color", kind: .flag, inversion: "no-color"),
    ]

    @Test(arguments: [
        ("yes", true), ("ON", true), ("1", true), ("true", true), ("no", false), ("off", false), ("0", false),
    ])
    func aFlagTakesSystemdsBooleans(text: String, value: Bool) throws {
        let sources = try ServeConfigurationSources.resolve(
            arguments: [],
            environment: ["WOTS_QUIET": text, "WOTS_COLOR": text],
            options: Self.switches
        )
        #expect(sources.arguments == (value ? ["--quiet", "--color"] : ["--no-color"]))
        #expect(sources.settings.map(\.values) == [[String(value)], [String(value)]])
    }

    @Test func aFlagWithAnotherValueIsRefusedNamingTheVariable() {
        let error = #expect(throws: WotsError.self) {
            try ServeConfigurationSources.resolve(
                arguments: [],
                environment: ["WOTS_QUIET": "maybe"],
                options: Self.switches
            )
        }
        #expect(error?.reason.hasPrefix("environment WOTS_QUIET: \"maybe\" is not a boolean") == true)
    }

    @Test func theServeArgumentsAreFoundWithOrWithoutTheSubcommand() {
        let explicit = ServeInvocation(["serve", "--port", "1"])
        #expect(explicit?.prefix == ["serve"] && explicit?.arguments == ["--port", "1"])
        let implicit = ServeInvocation(["--port", "1"])
        #expect(implicit?.prefix == [] && implicit?.arguments == ["--port", "1"])
        #expect(ServeInvocation(["admin", "stats"]) == nil)
        #expect(ServeInvocation(["serve", "--help"]) == nil)
        #expect(ServeInvocation(["--generate-completion-script", "bash"]) == nil)
    }
}
