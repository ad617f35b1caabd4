import Foundation
import Testing
import WotsCore
import WotsTesting

@testable import WotsRelayLaunch

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SystemdNotifierTests {
    @Test(arguments: [false, true])
    func readyArrivesAsOneDatagramOnThePathOrAbstractSocket(abstract: Bool) throws {
        let name =
            abstract ? "@wots-test-\(UUID().uuidString)" : NSTemporaryDirectory() + "wots-\(UUID().uuidString).sock"
        let listener = try DatagramListener(name: name)
        defer { listener.close() }
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]))
        try notifier.notify("READY=1")
        try notifier.notify("STOPPING=1")
        #expect(try listener.receive(within: .seconds(5)) == "READY=1")
        #expect(try listener.receive(within: .seconds(5)) == "STOPPING=1")
    }

    @Test func withoutNotifySocketThereIsNoNotifier() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
    }

    @Test func aRelativeSocketNameIsRefused() {
        let error = #expect(throws: WotsError.self) { try SystemdNotifier(socketPath: "notify.sock").notify("READY=1") }
        #expect(error?.reason.contains("neither an absolute path nor an @abstract name") == true)
    }

    @Test func aSocketNobodyListensOnIsAnErrorNamingIt() {
        let path = NSTemporaryDirectory() + "wots-absent-\(UUID().uuidString).sock"
        let error = #expect(throws: WotsError.self) { try SystemdNotifier(socketPath: path).notify("READY=1") }
        #expect(error?.reason.contains("notifying systemd at \(path): sendto failed") == true)
    }
}
