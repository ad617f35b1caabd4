// relay-bench: a load generator for a running wots-relay over loopback (issue 6).
//
// `relay-bench shapes --url URL --pid PID`: N senders and N recipients, genuinely sealed ~1 KiB envelopes, three
// shapes: durable store (recipients offline), drain (recipients connect and ack everything), online (saturation,
// then latency at a fixed offered rate). `relay-bench connections --url URL --pid PID`: idle authenticated
// WebSockets in steps, the relay's RSS per connection, and one message through at the top.
// Every figure is also printed as a `RESULT key=value` line for scripts/bench-relay.sh.

import ArgumentParser
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Histogram
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization
import WotsCore
import WotsCrypto
import WotsTesting

// MARK: - Output

func say(_ text: String) {
    print(text)
    fflush(nil)
}

func result(_ key: String, _ value: String) { say("RESULT \(key)=\(value)") }
func result(_ key: String, _ value: Double, digits: Int = 0) { result(key, String(format: "%.\(digits)f", value)) }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A mutex that escaping closures can share.
final class Locked<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { self.mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { self.mutex.withLock { body(&$0) } }
}

// MARK: - Process figures

enum ProcessStats {
    /// VmRSS of `pid` in KiB.
    static func rssKiB(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    /// utime + stime of `pid` in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Fields after the command: state is index 0, utime is field 14 overall → index 11 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Relay CPU use over a phase: how many of the box's cores the relay kept busy.
struct CPUWatch {
    let pid: Int32?
    let startCPU: Double?
    let startTime = now()

    init(pid: Int32?) {
        self.pid = pid
        self.startCPU = pid.flatMap(ProcessStats.cpuSeconds)
    }

    /// This load generator's own CPU, to show whether the client or the server was the limit.
    static func client() -> CPUWatch { CPUWatch(pid: getpid()) }

    func coresBusy() -> Double? {
        guard let pid, let startCPU, let end = ProcessStats.cpuSeconds(pid) else { return nil }
        return (end - startCPU) / (Double(now() - self.startTime) / 1e9)
    }
}

// MARK: - Users and the HTTP API

struct BenchUser: Sendable {
    let token: Token
    let nickname: Nickname
    let identity: IdentityKeys
    var session: String = ""
}

final class RelayAPI: Sendable {
    let base: String
    let wsURL: String
    let http: HTTPClient

    init(base: String, connections: Int) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.wsURL = self.base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/stream"
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await self.http.shutdown() }

    func post(_ path: String, body: ByteBuffer, session: String? = nil) async throws -> (UInt, ByteBuffer) {
        var request = HTTPClientRequest(url: self.base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let session { request.headers.add(name: "Authorization", value: "Bearer \(session)") }
        request.body = .bytes(body)
        let response = try await self.http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        return (response.status.code, bytes)
    }

    func postJSON<T: Encodable>(_ path: String, _ value: T, session: String? = nil) async throws -> (UInt, ByteBuffer) {
        try await self.post(path, body: ByteBuffer(bytes: try WireCoding.makeEncoder().encode(value)), session: session)
    }

    static func makeUser(index: Int, role: String, run: String) throws -> BenchUser {
        let fixture = TestIdentities.all[index % TestIdentities.all.count]
        return BenchUser(
            token: try Token(bytes: SecureRandom.bytes(16)),
            nickname: try Nickname("\(run)-\(role)\(index)"),
            identity: fixture.identity
        )
    }

    func register(_ user: BenchUser) async throws {
        let record = try PrivateRecord.seal(
            identity: user.identity,
            token: user.token,
            secret: "bench secret \(user.nickname)",
            parameters: TestIdentities.cheapKeyDerivation
        )
        let proof = try RegistrationProof.sign(
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.identity.publicKeys,
            identity: user.identity
        )
        let request = RegistrationRequest(
            token: user.token,
            nickname: user.nickname,
            publicKeys: user.identity.publicKeys,
            privateRecord: record,
            proof: Data(proof).base64EncodedString()
        )
        let (status, body) = try await self.postJSON("/v1/register", request)
        guard status == 201 else {
            throw BenchError("register \(user.nickname): HTTP \(status) \(String(buffer: body).prefix(200))")
        }
    }

    func login(_ user: BenchUser) async throws -> String {
        let (status, body) = try await self.post("/v1/auth/challenge", body: ByteBuffer())
        guard status == 200 else { throw BenchError("challenge: HTTP \(status) \(String(buffer: body).prefix(200))") }
        let challenge = try WireCoding.makeDecoder().decode(ChallengeResponse.self, from: Data(body.readableBytesView))
        guard let nonce = Data(base64Encoded: challenge.nonce), let relayID = Data(base64Encoded: challenge.relayID)
        else { throw BenchError("challenge: bad base64") }
        let signature = try user.identity.signAuthentication(
            relayID: Array(relayID),
            nonce: Array(nonce),
            token: user.token
        )
        let (status2, body2) = try await self.postJSON(
            "/v1/auth/session",
            SessionRequest(token: user.token, nonce: challenge.nonce, signature: Data(signature).base64EncodedString())
        )
        guard status2 == 200 else { throw BenchError("session: HTTP \(status2) \(String(buffer: body2).prefix(200))") }
        return try WireCoding.makeDecoder().decode(SessionResponse.self, from: Data(body2.readableBytesView)).session
    }

    /// Registers and logs in `count` users, `parallel` at a time.
    func prepareUsers(count: Int, role: String, run: String, parallel: Int = 8) async throws -> [BenchUser] {
        var users = try (0..<count).map { try Self.makeUser(index: $0, role: role, run: run) }
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var next = 0
            func add() {
                let index = next
                let user = users[index]
                next += 1
                group.addTask {
                    try await self.register(user)
                    return (index, try await self.login(user))
                }
            }
            while next < min(parallel, count) { add() }
            while let (index, session) = try await group.next() {
                users[index].session = session
                if next < count { add() }
            }
        }
        return users
    }
}

// MARK: - Pre-sealed envelopes

struct SealedMessage: Sendable {
    /// The message id in lowercase, as the relay writes it in its frames.
    let id: String
    /// `Envelope` JSON, the body of `POST /v1/messages`.
    let body: ByteBuffer
    /// `{"type":"send","envelope":…}`.
    let frame: String
}

// MARK: - WebSocket connections

/// Cheap field extraction from relay frames (sorted keys): the first `"id":"…"` is the envelope's (message frame)
/// or the receipt's (accepted frame); the first `"sender":"…"` is the envelope's (message frame).
enum FrameScan {
    /// The frame's type: the last key, so the frame ends with `"type":"…"}`.
    static func type(of text: String) -> String {
        for kind in ["message", "accepted", "acked", "error", "ready"]
        where text.hasSuffix("\"type\":\"\(kind)\"}") {
            return kind
        }
        return Self.value(of: "\"type\":\"", in: text, last: true).map(String.init) ?? ""
    }
    static func id(in text: String) -> Substring? { Self.value(of: "\"id\":\"", in: text, last: false) }
    static func sender(in text: String) -> Substring? { Self.value(of: "\"sender\":\"", in: text, last: false) }

    static func value(of marker: String, in text: String, last: Bool) -> Substring? {
        guard let range = last ? text.range(of: marker, options: .backwards) : text.range(of: marker) else {
            return nil
        }
        guard let end = text[range.upperBound...].firstIndex(of: "\"") else { return nil }
        return text[range.upperBound..<end]
    }
}

/// Counters and latencies shared by every connection.
final class Collector: Sendable {
    struct State {
        var delivered = 0
        var accepted = 0
        var refused = 0
        var refusals: [String: Int] = [:]
        /// message id → send time (ns), only while measuring latency.
        var sentAt: [String: UInt64] = [:]
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var trackLatency = false
    }

    let state = Mutex(State())

    var delivered: Int { self.state.withLock { $0.delivered } }
    var accepted: Int { self.state.withLock { $0.accepted } }
}

/// One authenticated WebSocket to `/v1/stream`.
final class StreamConnection: Sendable {
    enum Role: Sendable { case recipient, sender, idle }

    struct State {
        var outbound: WebSocketOutboundWriter?
        var ready: CheckedContinuation<Void, any Error>?
        var isReady = false
        var failure: (any Error)?
        /// Message keys not acknowledged yet, each already in its JSON form `{"id":"…","sender":"…"}`.
        var pendingAcks: [String] = []
        var inFlight = 0
        var windowWaiter: CheckedContinuation<Void, Never>?
    }

    let role: Role
    let collector: Collector
    let state = Mutex(State())
    let ackBatch = 50

    init(role: Role, collector: Collector) {
        self.role = role
        self.collector = collector
    }

    /// Connects and returns once the relay said `ready`; the connection then lives in `task` until closed.
    static func open(url: String, session: String, role: Role, collector: Collector, logger: Logger) async throws
        -> (StreamConnection, Task<Void, Never>)
    {
        let connection = StreamConnection(role: role, collector: collector)
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(session)"
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
        let task = Task {
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                    inbound,
                    outbound,
                    _ in
                    connection.state.withLock { $0.outbound = outbound }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        try await connection.handle(text)
                    }
                }
                connection.fail(BenchError("connection closed before ready"))
            } catch {
                connection.fail(error)
            }
        }
        do {
            try await connection.waitReady()
        } catch {
            task.cancel()
            throw error
        }
        return (connection, task)
    }

    private func waitReady() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = self.state.withLock { state -> Result<Void, any Error>? in
                if state.isReady { return .success(()) }
                if let failure = state.failure { return .failure(failure) }
                state.ready = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func fail(_ error: any Error) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if !state.isReady && state.failure == nil { state.failure = error }
            defer { state.ready = nil }
            return state.ready
        }
        waiter?.resume(throwing: error)
    }

    private func handle(_ text: String) async throws {
        switch FrameScan.type(of: text) {
        case "message":
            let arrival = now()
            guard let id = FrameScan.id(in: text).map(String.init), let sender = FrameScan.sender(in: text) else {
                return
            }
            self.collector.state.withLock { state in
                state.delivered += 1
                if state.trackLatency, let sent = state.sentAt.removeValue(forKey: id), arrival > sent {
                    state.latency.record((arrival - sent) / 1000)  // microseconds
                }
            }
            let batch = self.state.withLock { state -> [String]? in
                state.pendingAcks.append("{\"id\":\"\(id)\",\"sender\":\"\(sender)\"}")
                guard state.pendingAcks.count >= self.ackBatch else { return nil }
                defer { state.pendingAcks.removeAll(keepingCapacity: true) }
                return state.pendingAcks
            }
            if let batch { try await self.writeAck(batch) }
        case "accepted":
            self.collector.state.withLock { $0.accepted += 1 }
            self.releaseWindow()
        case "error":
            let code = FrameScan.value(of: "\"code\":\"", in: text, last: false).map(String.init) ?? "?"
            self.collector.state.withLock {
                $0.refused += 1
                $0.refusals[code, default: 0] += 1
            }
            // Every frame gets a reply: on a sender's socket an error answers a `send`, on a recipient's an `ack`.
            if self.role == .sender { self.releaseWindow() }
        case "ready":
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                state.isReady = true
                defer { state.ready = nil }
                return state.ready
            }
            waiter?.resume()
        default:
            break
        }
    }

    private func releaseWindow() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight -= 1
            defer { state.windowWaiter = nil }
            return state.windowWaiter
        }
        waiter?.resume()
    }

    private var outbound: WebSocketOutboundWriter? { self.state.withLock { $0.outbound } }

    /// Acknowledges by (sender, id); the relay's `acked` reply is not waited for.
    private func writeAck(_ keys: [String]) async throws {
        let list = keys.joined(separator: ",")
        try await self.outbound?.writeTextMessage("{\"messages\":[\(list)],\"type\":\"ack\"}")
    }

    func flushAcks() async throws {
        let batch = self.state.withLock { state -> [String] in
            defer { state.pendingAcks.removeAll() }
            return state.pendingAcks
        }
        if !batch.isEmpty { try await self.writeAck(batch) }
    }

    /// Sends a frame without waiting for its answer.
    func send(_ frame: String) async throws {
        self.state.withLock { $0.inFlight += 1 }
        try await self.outbound?.writeTextMessage(frame)
    }

    /// Sends a frame once fewer than `window` frames are unanswered.
    func send(_ frame: String, window: Int) async throws {
        while true {
            let full = self.state.withLock { $0.inFlight >= window }
            if !full { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state -> Bool in
                    if state.inFlight < window { return true }
                    state.windowWaiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        try await self.send(frame)
    }

    func close() async {
        try? await self.outbound?.close(.normalClosure, reason: nil)
    }
}

/// Opens `sessions.count` connections, `parallel` at a time.
func openConnections(
    url: String,
    sessions: [String],
    role: StreamConnection.Role,
    collector: Collector,
    logger: Logger,
    parallel: Int = 64
) async throws -> [(StreamConnection, Task<Void, Never>)] {
    var opened: [(StreamConnection, Task<Void, Never>)?] = Array(repeating: nil, count: sessions.count)
    try await withThrowingTaskGroup(of: (Int, StreamConnection, Task<Void, Never>).self) { group in
        var next = 0
        func add() {
            let index = next
            let session = sessions[index]
            next += 1
            group.addTask {
                let (connection, task) = try await StreamConnection.open(
                    url: url,
                    session: session,
                    role: role,
                    collector: collector,
                    logger: logger
                )
                return (index, connection, task)
            }
        }
        while next < min(parallel, sessions.count) { add() }
        while let (index, connection, task) = try await group.next() {
            opened[index] = (connection, task)
            if next < sessions.count { add() }
        }
    }
    return opened.compactMap { $0 }
}

func closeAll(_ connections: [(StreamConnection, Task<Void, Never>)]) async {
    await withTaskGroup(of: Void.self) { group in
        for (connection, task) in connections {
            group.addTask {
                await connection.close()
                await task.value
            }
        }
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
    let deadline = now() + UInt64(seconds * 1e9)
    while now() < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

// MARK: - Commands

struct RelayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay-bench",
        abstract: "Load generator for a running wots-relay.",
        subcommands: [Shapes.self, Connections.self]
    )
}

struct Common: ParsableArguments {
    @Option(help: "Relay base URL, e.g. http://127.0.0.1:8080") var url: String
    @Option(help: "Relay process id, for CPU and RSS figures") var pid: Int32?
    @Option(help: "Label put in front of every RESULT key") var label = "wots"
}

/// The subcommands' work, callable from top-level code (`run()` on an existential resolves to the synchronous one).
protocol BenchCommand {
    func measure() async throws
}

struct Shapes: AsyncParsableCommand, BenchCommand {
    static let configuration = CommandConfiguration(abstract: "Durable store, drain and online shapes.")

    @OptionGroup var common: Common
    @Option(help: "Senders, and as many recipients") var users = 50
    @Option(help: "Messages per sender for the store shape") var storePerSender = 400
    @Option(help: "Concurrent POSTs per sender in the store shape") var storeConcurrency = 1
    @Option(help: "Messages per sender for the online saturation shape") var onlinePerSender = 300
    @Option(help: "Unanswered send frames per sender at saturation") var window = 8
    @Option(help: "Offered rate for the latency shape (msg/s)") var rate = 5000
    @Option(help: "Seconds at the offered rate") var rateSeconds = 5.0
    @Option(help: "Plaintext bytes per message (padded to 256; the envelope is then ~1 KiB binary)") var plaintext = 400
    @Option(help: "Upper bound in seconds for each shape") var timeout = 60.0

    func run() async throws { try await self.measure() }

    func measure() async throws {
        var logger = Logger(label: "relay-bench")
        logger.logLevel = .warning
        let label = self.common.label
        let api = RelayAPI(base: self.common.url, connections: max(64, self.users * self.storeConcurrency))
        let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)

        var clock = now()
        let senders = try await api.prepareUsers(count: self.users, role: "s", run: run)
        let recipients = try await api.prepareUsers(count: self.users, role: "r", run: run)
        say(
            "registered and logged in \(self.users * 2) users in \(String(format: "%.1f", Double(now() - clock) / 1e9)) s"
        )

        let ratePerSender = Double(self.rate) / Double(self.users)
        let ratePerSenderCount = Int((ratePerSender * self.rateSeconds).rounded(.up))
        clock = now()
        let sealed = try await sealAll(
            senders: senders,
            recipients: recipients,
            counts: [self.storePerSender, self.onlinePerSender, ratePerSenderCount]
        )
        let total = sealed.map { $0.reduce(0) { $0 + $1.count } }.reduce(0, +)
        let envelopeBytes = sealed[0][0][0].body.readableBytes
        say(
            "sealed \(total) envelopes in \(String(format: "%.1f", Double(now() - clock) / 1e9)) s "
                + "(\(envelopeBytes) bytes of JSON each, plaintext \(self.plaintext) bytes)"
        )
        result("\(label).envelope_json_bytes", "\(envelopeBytes)")

        let collector = Collector()

        // Shape 1: durable store, recipients offline; count only 202s.
        let storeSet = sealed.map { $0[0] }
        var stored = 0
        do {
            let counts = Locked((accepted: 0, other: [UInt: Int]()))
            let cpu = CPUWatch(pid: self.common.pid)
            let clientCPU = CPUWatch.client()
            let start = now()
            let deadline = start + UInt64(self.timeout * 1e9)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, messages) in storeSet.enumerated() {
                    let session = senders[index].session
                    for lane in 0..<self.storeConcurrency {
                        let mine = stride(from: lane, to: messages.count, by: self.storeConcurrency).map {
                            messages[$0]
                        }
                        group.addTask {
                            for message in mine where now() < deadline {
                                let (status, _) = try await api.post(
                                    "/v1/messages",
                                    body: message.body,
                                    session: session
                                )
                                counts.withLock {
                                    if status == 202 { $0.accepted += 1 } else { $0.other[status, default: 0] += 1 }
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = Double(now() - start) / 1e9
            let (accepted, other) = counts.withLock { ($0.accepted, $0.other) }
            stored = accepted
            say(
                "store: \(accepted) accepted (202) of \(storeSet.reduce(0) { $0 + $1.count }) in "
                    + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(accepted) / elapsed)) msg/s"
                    + (other.isEmpty ? "" : ", other statuses \(other)")
                    + (cpu.coresBusy().map { String(format: ", relay CPU %.2f cores", $0) } ?? "")
                    + (clientCPU.coresBusy().map { String(format: ", load generator CPU %.2f cores", $0) } ?? "")
            )
            result("\(label).store_msgs", "\(accepted)")
            result("\(label).store_rate", Double(accepted) / elapsed)
            if let busy = cpu.coresBusy() { result("\(label).store_relay_cores", busy, digits: 2) }
        }

        // Shape 2: drain; recipients connect, receive and ack everything stored.
        var recipientConnections: [(StreamConnection, Task<Void, Never>)] = []
        do {
            let cpu = CPUWatch(pid: self.common.pid)
            let clientCPU = CPUWatch.client()
            let start = now()
            recipientConnections = try await openConnections(
                url: api.wsURL,
                sessions: recipients.map(\.session),
                role: .recipient,
                collector: collector,
                logger: logger
            )
            let complete = try await waitUntil(seconds: self.timeout) { collector.delivered >= stored }
            for (connection, _) in recipientConnections { try await connection.flushAcks() }
            let elapsed = Double(now() - start) / 1e9
            let delivered = collector.delivered
            say(
                "drain: \(delivered) of \(stored) delivered and acked in \(String(format: "%.2f", elapsed)) s = "
                    + "\(Int(Double(delivered) / elapsed)) msg/s" + (complete ? "" : " (TIMED OUT)")
                    + (cpu.coresBusy().map { String(format: ", relay CPU %.2f cores", $0) } ?? "")
                    + (clientCPU.coresBusy().map { String(format: ", load generator CPU %.2f cores", $0) } ?? "")
            )
            result("\(label).drain_msgs", "\(delivered)")
            result("\(label).drain_rate", Double(delivered) / elapsed)
            if let busy = cpu.coresBusy() { result("\(label).drain_relay_cores", busy, digits: 2) }
            // Let the acks land before the next shape.
            try await Task.sleep(for: .milliseconds(500))
        }

        // Shape 3a: online at saturation, sends over the senders' own WebSockets with a window.
        let senderConnections = try await openConnections(
            url: api.wsURL,
            sessions: senders.map(\.session),
            role: .sender,
            collector: collector,
            logger: logger
        )
        do {
            let onlineSet = sealed.map { $0[1] }
            let expected = onlineSet.reduce(0) { $0 + $1.count }
            let base = collector.state.withLock { ($0.delivered, $0.accepted) }
            let cpu = CPUWatch(pid: self.common.pid)
            let clientCPU = CPUWatch.client()
            let start = now()
            let deadline = start + UInt64(self.timeout * 1e9)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, messages) in onlineSet.enumerated() {
                    let connection = senderConnections[index].0
                    let window = self.window
                    group.addTask {
                        for message in messages where now() < deadline {
                            try await connection.send(message.frame, window: window)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let complete = try await waitUntil(seconds: max(1, Double(deadline - min(deadline, now())) / 1e9)) {
                collector.delivered - base.0 >= expected
            }
            let elapsed = Double(now() - start) / 1e9
            let (delivered, accepted, refusals) = collector.state.withLock {
                ($0.delivered - base.0, $0.accepted - base.1, $0.refusals)
            }
            say(
                "online saturation: \(accepted) accepted, \(delivered) delivered of \(expected) in "
                    + "\(String(format: "%.2f", elapsed)) s = \(Int(Double(delivered) / elapsed)) msg/s delivered"
                    + (complete ? "" : " (TIMED OUT)") + (refusals.isEmpty ? "" : ", refusals \(refusals)")
                    + (cpu.coresBusy().map { String(format: ", relay CPU %.2f cores", $0) } ?? "")
                    + (clientCPU.coresBusy().map { String(format: ", load generator CPU %.2f cores", $0) } ?? "")
            )
            result("\(label).online_msgs", "\(delivered)")
            result("\(label).online_rate", Double(delivered) / elapsed)
            if let busy = cpu.coresBusy() { result("\(label).online_relay_cores", busy, digits: 2) }
            for (connection, _) in recipientConnections { try await connection.flushAcks() }
            try await Task.sleep(for: .milliseconds(500))
        }

        // Shape 3b: online at a fixed offered rate; send-to-delivery latency from the scheduled send time.
        do {
            let rateSet = sealed.map { $0[2] }
            let expected = rateSet.reduce(0) { $0 + $1.count }
            collector.state.withLock {
                $0.trackLatency = true
                $0.latency.reset()
                $0.sentAt.reserveCapacity(expected)
            }
            let base = collector.state.withLock { ($0.delivered, $0.accepted) }
            let interval = 1e9 / ratePerSender
            let cpu = CPUWatch(pid: self.common.pid)
            let clientCPU = CPUWatch.client()
            let start = now()
            let late = Locked(0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, messages) in rateSet.enumerated() {
                    let connection = senderConnections[index].0
                    // Spread the senders' schedules evenly over one interval.
                    let offset = interval * Double(index) / Double(rateSet.count)
                    group.addTask {
                        for (k, message) in messages.enumerated() {
                            let scheduled = start + UInt64(offset + interval * Double(k))
                            let current = now()
                            if scheduled > current {
                                try await Task.sleep(for: .nanoseconds(Int64(scheduled - current)))
                            } else if current - scheduled > 1_000_000 {
                                late.withLock { $0 += 1 }
                            }
                            collector.state.withLock { $0.sentAt[message.id] = scheduled }
                            try await connection.send(message.frame)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sendElapsed = Double(now() - start) / 1e9
            let complete = try await waitUntil(seconds: 10) { collector.delivered - base.0 >= expected }
            let (delivered, histogram, refusals) = collector.state.withLock {
                ($0.delivered - base.0, $0.latency, $0.refusals)
            }
            let p50 = Double(histogram.valueAtPercentile(50)) / 1000
            let p99 = Double(histogram.valueAtPercentile(99)) / 1000
            let p999 = Double(histogram.valueAtPercentile(99.9)) / 1000
            let maximum = Double(histogram.max) / 1000
            let lateCount = late.withLock { $0 }
            say(
                "online at \(self.rate) msg/s offered: sent \(expected) in \(String(format: "%.2f", sendElapsed)) s "
                    + "(\(Int(Double(expected) / sendElapsed)) msg/s achieved, \(lateCount) sends >1 ms behind schedule), "
                    + "\(delivered) delivered\(complete ? "" : " (INCOMPLETE)"); send-to-delivery latency "
                    + String(format: "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms", p50, p99, p999, maximum)
                    + (refusals.isEmpty ? "" : ", refusals \(refusals)")
                    + (cpu.coresBusy().map { String(format: ", relay CPU %.2f cores", $0) } ?? "")
                    + (clientCPU.coresBusy().map { String(format: ", load generator CPU %.2f cores", $0) } ?? "")
            )
            result("\(label).rate_offered", "\(self.rate)")
            result("\(label).rate_achieved", Double(expected) / sendElapsed)
            result("\(label).rate_delivered", "\(delivered)")
            result("\(label).rate_expected", "\(expected)")
            result("\(label).latency_p50_ms", p50, digits: 2)
            result("\(label).latency_p99_ms", p99, digits: 2)
            result("\(label).latency_p999_ms", p999, digits: 2)
            result("\(label).latency_max_ms", maximum, digits: 2)
            if let busy = cpu.coresBusy() { result("\(label).rate_relay_cores", busy, digits: 2) }
        }
        await closeAll(senderConnections)
        await closeAll(recipientConnections)
        await api.shutdown()
    }

    /// Seals, for each sender, one list of messages per entry of `counts`.
    func sealAll(senders: [BenchUser], recipients: [BenchUser], counts: [Int]) async throws -> [[[SealedMessage]]] {
        let plaintextSize = self.plaintext
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var out: [[[SealedMessage]]] = Array(repeating: [], count: senders.count)
        try await withThrowingTaskGroup(of: [(Int, [[SealedMessage]])].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let encoder = WireCoding.makeEncoder()
                    var mine: [(Int, [[SealedMessage]])] = []
                    for index in stride(from: worker, to: senders.count, by: workers) {
                        let sender = senders[index]
                        let recipient = recipients[index]
                        var lists: [[SealedMessage]] = []
                        for count in counts {
                            var list: [SealedMessage] = []
                            list.reserveCapacity(count)
                            for _ in 0..<count {
                                let envelope = try Envelope.seal(
                                    plaintext: SecureRandom.bytes(plaintextSize),
                                    from: sender.token,
                                    identity: sender.identity,
                                    to: recipient.token,
                                    recipientKeys: recipient.identity.publicKeys
                                )
                                let json = try encoder.encode(envelope)
                                list.append(
                                    SealedMessage(
                                        id: envelope.header.messageID.lowercasedString,
                                        body: ByteBuffer(bytes: json),
                                        frame: "{\"envelope\":" + String(decoding: json, as: UTF8.self)
                                            + ",\"type\":\"send\"}"
                                    )
                                )
                            }
                            lists.append(list)
                        }
                        mine.append((index, lists))
                    }
                    return mine
                }
            }
            for try await batch in group {
                for (index, lists) in batch { out[index] = lists }
            }
        }
        return out
    }
}

struct Connections: AsyncParsableCommand, BenchCommand {
    static let configuration = CommandConfiguration(
        abstract: "Idle authenticated WebSockets in steps; RSS per connection."
    )

    @OptionGroup var common: Common
    @Option(help: "Connection counts to reach, comma-separated") var steps = "1000,5000,10000,15000,19500"
    @Option(help: "Users whose sessions the idle connections share") var users = 100
    @Option(help: "Connections opened in parallel") var parallel = 128
    @Option(help: "Upper bound in seconds for the whole ceiling run") var timeout = 240.0

    func run() async throws { try await self.measure() }

    func measure() async throws {
        var logger = Logger(label: "relay-bench")
        logger.logLevel = .critical
        let label = self.common.label
        let api = RelayAPI(base: self.common.url, connections: 16)
        let run = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let stepList = self.steps.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let users = try await api.prepareUsers(count: self.users, role: "i", run: run)
        let probes = try await api.prepareUsers(count: 2, role: "p", run: run)
        let sealed = try await Shapes.sealProbe(from: probes[0], to: probes[1])
        let collector = Collector()
        // The probe recipient's own connection, counted in every step.
        var all = try await openConnections(
            url: api.wsURL,
            sessions: [probes[1].session],
            role: .recipient,
            collector: collector,
            logger: logger
        )
        try await Task.sleep(for: .seconds(1))
        let pid = self.common.pid
        let baseline = pid.flatMap(ProcessStats.rssKiB)
        if let baseline { say("relay RSS with 1 connection: \(baseline) KiB") }
        let deadline = now() + UInt64(self.timeout * 1e9)
        var reached = all.count
        for step in stepList where now() < deadline {
            let missing = step - all.count
            guard missing > 0 else { continue }
            let start = now()
            do {
                let sessions = (0..<missing).map { users[(all.count + $0) % users.count].session }
                let more = try await openConnections(
                    url: api.wsURL,
                    sessions: sessions,
                    role: .idle,
                    collector: collector,
                    logger: logger,
                    parallel: self.parallel
                )
                all.append(contentsOf: more)
            } catch {
                say("connections: step \(step) failed after \(all.count) open: \(error)")
                result("\(label).conn_failed_at", "\(step)")
                result(
                    "\(label).conn_error",
                    "\(String(describing: error).prefix(120))".replacingOccurrences(of: " ", with: "_")
                )
                break
            }
            reached = all.count
            try await Task.sleep(for: .seconds(2))
            let rss = pid.flatMap(ProcessStats.rssKiB)
            let perConnection = rss.flatMap { rss in baseline.map { Double(rss - $0) / Double(all.count - 1) } }
            say(
                "connections: \(all.count) open (step took \(String(format: "%.1f", Double(now() - start) / 1e9)) s)"
                    + (rss.map { ", relay RSS \($0) KiB" } ?? "")
                    + (perConnection.map { String(format: ", %.1f KiB per connection above baseline", $0) } ?? "")
            )
            result("\(label).conn_\(step)_rss_kib", "\(rss ?? -1)")
            if let perConnection { result("\(label).conn_\(step)_kib_per_conn", perConnection, digits: 1) }
        }
        result("\(label).conn_reached", "\(reached)")
        // A message still gets through at the top.
        let start = now()
        let (status, _) = try await api.post("/v1/messages", body: sealed.body, session: probes[0].session)
        let through = try await waitUntil(seconds: 10) { collector.delivered >= 1 }
        let millis = Double(now() - start) / 1e6
        say(
            "probe at \(all.count) connections: POST \(status), "
                + (through
                    ? String(format: "delivered over WebSocket after %.1f ms", millis) : "NOT delivered within 10 s")
        )
        result("\(label).conn_probe_delivered", through ? "yes" : "no")
        result("\(label).conn_probe_ms", millis, digits: 1)
        await closeAll(all)
        await api.shutdown()
    }
}

extension Shapes {
    static func sealProbe(from sender: BenchUser, to recipient: BenchUser) async throws -> SealedMessage {
        let envelope = try Envelope.seal(
            plaintext: Array("probe".utf8),
            from: sender.token,
            identity: sender.identity,
            to: recipient.token,
            recipientKeys: recipient.identity.publicKeys
        )
        let json = try WireCoding.makeEncoder().encode(envelope)
        return SealedMessage(id: envelope.header.messageID.lowercasedString, body: ByteBuffer(bytes: json), frame: "")
    }
}

// Top-level entry (a `main.swift` cannot carry `@main`): parse, then run the async subcommand.
do {
    var command = try RelayBench.parseAsRoot()
    if let benchCommand = command as? any BenchCommand {
        try await benchCommand.measure()
    } else {
        try command.run()
    }
} catch {
    RelayBench.exit(withError: error)
}
