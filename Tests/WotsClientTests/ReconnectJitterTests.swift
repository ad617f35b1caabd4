import Testing

@testable import WotsClient

@Suite("Reconnecting after a lost stream")
struct ReconnectJitterTests {
    @Test("each pause is between half the back-off and all of it, and pauses differ between clients")
    func pausesAreJittered() {
        let backoff = Duration.seconds(8)
        let pauses = (0..<200).map { _ in StreamClient.jittered(backoff) }
        #expect(pauses.allSatisfy { $0 >= .seconds(4) && $0 <= .seconds(8) })
        #expect(Set(pauses.map { $0.components.attoseconds }).count > 100)
    }
}
