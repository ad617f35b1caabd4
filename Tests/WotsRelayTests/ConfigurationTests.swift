import Testing
import WotsCore
import WotsRelay

@Suite struct ConfigurationTests {
    @Test func theDefaultsAreValid() throws {
        _ = try RelayConfiguration().validated()
    }

    enum BrokenRule: String, CaseIterable, Sendable {
        case frameSmallerThanTwoEnvelopes, requestSmallerThanTwoEnvelopes, portOutOfRange, tinyEnvelopes, noMailbox
        case noSendRate, zeroSessionLifetime, zeroResyncInterval
        case zeroHeaderTimeout, zeroBodyTimeout, zeroIdleTimeout, zeroFragmentTimeout, noConnections

        func apply(to configuration: inout RelayConfiguration) {
            switch self {
            case .frameSmallerThanTwoEnvelopes: configuration.maximumFrameSize = configuration.maximumEnvelopeSize
            case .requestSmallerThanTwoEnvelopes: configuration.maximumRequestSize = 1_024
            case .portOutOfRange: configuration.port = 70_000
            case .tinyEnvelopes: configuration.maximumEnvelopeSize = 100
            case .noMailbox: configuration.mailboxCapacity = 0
            case .noSendRate: configuration.sendRate = RateLimit(perSecond: 0, burst: 1)
            case .zeroSessionLifetime: configuration.sessionLifetime = .zero
            case .zeroResyncInterval: configuration.resyncInterval = .zero
            case .zeroHeaderTimeout: configuration.headerTimeout = .zero
            case .zeroBodyTimeout: configuration.bodyTimeout = .zero
            case .zeroIdleTimeout: configuration.idleTimeout = .zero
            case .zeroFragmentTimeout: configuration.fragmentTimeout = .zero
            case .noConnections: configuration.maximumConnections = 0
            }
        }
    }

    @Test(arguments: BrokenRule.allCases)
    func aBrokenRuleIsRefusedByName(rule: BrokenRule) {
        var configuration = RelayConfiguration()
        rule.apply(to: &configuration)
        #expect(throws: WotsError(.invalidArgument, ""), "\(rule)") { _ = try configuration.validated() }
    }

    @Test(arguments: [(1_024, 854), (20_000, 17_936), (10, 16), (1_048_576, 943_649)])
    func theDefaultConnectionCapLeavesRoomForTheDatabase(limit: Int, cap: Int) {
        #expect(DescriptorLimit.connectionCap(forLimit: limit) == cap)
    }

    @Test func theDescriptorLimitIsRaisedToTheHardLimit() {
        let raised = DescriptorLimit.raiseToHardLimit()
        #expect(raised == DescriptorLimit.current)
        #expect(raised >= 1_024)
    }

    @Test func aRelayRefusesToStartWithABrokenConfiguration() async {
        var configuration = RelayConfiguration()
        configuration.maximumFrameSize = 1_000
        await #expect(throws: WotsError(.invalidArgument, "")) {
            _ = try await RelayHarness.make(configuration: configuration)
        }
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("12h", .seconds(43_200)),
        ("7d", .seconds(604_800)), ("2", .seconds(2)), ("1.5s", .milliseconds(1_500)),
    ])
    func durationsAreReadAsPeopleWriteThem(text: String, expected: Duration) throws {
        #expect(try HumanUnits.duration(text, name: "--x") == expected)
    }

    @Test(arguments: [("65536", Int64(65_536)), ("64KiB", 65_536), ("64MiB", 67_108_864), ("1GB", 1_000_000_000)])
    func sizesAreReadAsPeopleWriteThem(text: String, expected: Int64) throws {
        #expect(try HumanUnits.bytes(text, name: "--x") == expected)
    }

    @Test(arguments: ["", "soon", "-5s", "5 parsecs", "12x"])
    func nonsenseIsRefused(text: String) {
        #expect(throws: WotsError(.invalidArgument, "")) { _ = try HumanUnits.duration(text, name: "--x") }
        #expect(throws: WotsError(.invalidArgument, "")) { _ = try HumanUnits.bytes(text, name: "--x") }
    }
}
