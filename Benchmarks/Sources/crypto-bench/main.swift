// Measures Wots' envelope sealing and opening rates and identity key generation time, single-threaded, with the
// pre-generated test identities. Prints `key=value` lines for scripts/bench-crypto.sh, which compares them with
// `openssl speed` and `openssl genpkey` measured in the same run.
//
// Rates are counted against CPU time used by this process (as `openssl speed` does by default with user time), so
// other work on the machine does not skew the ratios; wall-clock rates (ContinuousClock) are printed too.
import Foundation
import WotsCore
import WotsCrypto
import WotsTesting

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
func argument(_ name: String, default value: Double) -> Double {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let parsed = Double(arguments[index + 1])
    else { return value }
    return parsed
}
let seconds = argument("--seconds", default: 3)
let keygenRuns = max(0, Int(argument("--keygen-runs", default: 21)))
let sealAndOpen = argument("--rates", default: 1) != 0

let alice = TestIdentities.alice
let bob = TestIdentities.bob
let plaintext = SecureRandom.bytes(1_024)
let clock = ContinuousClock()

func seal() throws -> Envelope {
    try Envelope.seal(
        plaintext: plaintext,
        from: alice.token,
        identity: alice.identity,
        to: bob.token,
        recipientKeys: bob.publicKeys
    )
}

/// CPU time (user + system) this process has used, in seconds.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

func secondsOf(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Runs `body` repeatedly for about `seconds` of CPU time; returns operations per CPU second and per wall second.
func rate(_ body: () throws -> Void) rethrows -> (cpu: Double, wall: Double) {
    for _ in 0..<50 { try body() }  // warm up: caches, page faults, lazily fetched OpenSSL algorithms
    var operations = 0
    let startCPU = cpuSeconds()
    let start = clock.now
    while cpuSeconds() - startCPU < seconds {
        for _ in 0..<20 { try body() }
        operations += 20
    }
    let wall = secondsOf(clock.now - start)
    return (Double(operations) / (cpuSeconds() - startCPU), Double(operations) / wall)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) * 1e-15
}

do {
    let envelope = try seal()
    var sink = 0
    if sealAndOpen {
        let sealRate = try rate { sink &+= try seal().ciphertext.count }
        let openRate = try rate {
            sink &+= try envelope.open(as: bob.token, identity: bob.identity, senderKeys: alice.publicKeys).plaintext
                .count
        }
        print("seal_per_second=\(sealRate.cpu)")
        print("open_per_second=\(openRate.cpu)")
        print("seal_per_wall_second=\(sealRate.wall)")
        print("open_per_wall_second=\(openRate.wall)")
    }
    var samples: [Double] = []
    var wallSamples: [Double] = []
    for _ in 0..<keygenRuns {
        let startCPU = cpuSeconds()
        let start = clock.now
        let identity = try IdentityKeys.generate()
        samples.append((cpuSeconds() - startCPU) * 1000)
        wallSamples.append(milliseconds(clock.now - start))
        sink &+= identity.publicKeys.signing.count
    }
    samples.sort()
    wallSamples.sort()
    if samples.isEmpty { exit(0) }
    // One identity is two RSA-2048 key pairs; times are CPU milliseconds.
    print("identity_keygen_median_ms=\(samples[samples.count / 2])")
    print("identity_keygen_min_ms=\(samples.first!)")
    print("identity_keygen_max_ms=\(samples.last!)")
    print("identity_keygen_wall_median_ms=\(wallSamples[wallSamples.count / 2])")
    print("keygen_runs=\(keygenRuns)")
    print("sink=\(sink % 10)")
} catch {
    FileHandle.standardError.write(Data("crypto-bench: \(error)\n".utf8))
    exit(1)
}
