import Foundation
import Testing
import WotsCore
import WotsCrypto
import WotsTesting

/// Measures what sealing a group message costs the sender at 10, 100 and 256 members, beside a 1:1 seal. Run by hand:
/// `WOTS_MEASURE_GROUPS=1 swift test --filter GroupSealCost`; it prints milliseconds and checks nothing but success.
@Suite struct GroupSealCostTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WOTS_MEASURE_GROUPS"] == "1"))
    func sealCostAtTenHundredAndTwoHundredFiftySixMembers() throws {
        let alice = TestIdentities.alice
        let bob = TestIdentities.bob
        let plaintext = Array(repeating: UInt8(ascii: "a"), count: 1_024)
        let clock = ContinuousClock()
        let oneToOne = try clock.measure {
            for _ in 0..<20 {
                _ = try Envelope.seal(
                    plaintext: plaintext,
                    from: alice.token,
                    identity: alice.identity,
                    to: bob.token,
                    recipientKeys: bob.publicKeys
                )
            }
        }
        print("1:1 seal, 1 KiB: \(Self.milliseconds(oneToOne / 20)) ms")
        for members in [10, 100, 256] {
            let recipients = try (0..<members).map { _ in
                GroupRecipientKeys(token: try Token(bytes: SecureRandom.bytes(16)), publicKeys: bob.publicKeys)
            }
            let rounds = 5
            let elapsed = try clock.measure {
                for _ in 0..<rounds {
                    _ = try GroupEnvelope.seal(
                        plaintext: plaintext,
                        from: alice.token,
                        identity: alice.identity,
                        groupID: try GroupID(bytes: SecureRandom.bytes(16)),
                        membershipVersion: 1,
                        membershipStateHash: SecureRandom.bytes(32),
                        senderSequence: 1,
                        to: recipients
                    )
                }
            }
            print("group seal, 1 KiB, \(members) members: \(Self.milliseconds(elapsed / rounds)) ms")
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
