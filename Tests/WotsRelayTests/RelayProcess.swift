import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `wots-relay` binary, started on port 0 and talked to over loopback HTTP.
final class RelayProcess: Sendable {
    let port: Int
    let logFile: URL
    private let process: Mutex<Process>

    /// The binary next to the test bundle (`swift build --build-tests` builds it), or `WOTS_RELAY_BINARY`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["WOTS_RELAY_BINARY"] { return URL(fileURLWithPath: path) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("wots-relay")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/wots-relay")
    }

    private init(process: Process, port: Int, logFile: URL) {
        self.process = Mutex(process)
        self.port = port
        self.logFile = logFile
    }

    /// Starts the relay and waits until it prints the port it listens on.
    static func start(
        database: String,
        logFile: URL,
        extraArguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> RelayProcess {
        let process = Process()
        process.executableURL = Self.binary
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        process.arguments =
            [
                "serve", "--port", "0", "--database", database, "--send-rate", "100000",
                "--registrations-per-minute", "100000", "--admin-address", "127.0.0.1:0",
            ] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        let reader = output.fileHandleForReading
        let (port, seen) = await offThePool { Self.readPort(from: reader) }
        guard let port else {
            process.terminate()
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw ProcessError(description: "wots-relay did not start: \(seen) \(log)")
        }
        return RelayProcess(process: process, port: port, logFile: logFile)
    }

    /// Reads the relay's output until it names its port, for at most 30 seconds; the port (nil when it never came)
    /// and what was read. Blocking: run it off the task pool.
    private static func readPort(from output: FileHandle) -> (Int?, String) {
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = Data()
        while ContinuousClock.now < deadline {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            let text = String(decoding: seen, as: UTF8.self)
            if let range = text.range(of: #"listening on http://[0-9.]+:(\d+)"#, options: .regularExpression) {
                return (Int(text[range].split(separator: ":").last!)!, text)
            }
        }
        return (nil, String(decoding: seen, as: UTF8.self))
    }

    var baseURL: String { "http://127.0.0.1:\(self.port)" }

    func kill9() async {
        await offThePool {
            self.process.withLock { process in
                Foundation.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// Sends `signal` (SIGHUP, for example) and returns at once.
    func send(signal: Int32) {
        self.process.withLock { process in _ = Foundation.kill(process.processIdentifier, signal) }
    }

    /// Waits until the relay's log has a line containing `text`, for at most `timeout`; whether it came.
    func waitForLog(containing text: String, timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let log = try? String(contentsOf: self.logFile, encoding: .utf8), log.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Sends SIGTERM and returns the exit status.
    func terminate() async -> Int32 {
        await offThePool {
            self.process.withLock { process in
                process.terminate()
                process.waitUntilExit()
                return process.terminationStatus
            }
        }
    }

    /// One HTTP request; returns status and body.
    func request(_ path: String, method: String = "GET", session: String? = nil, body: Data? = nil) async throws -> (
        Int, Data
    ) {
        var request = URLRequest(url: URL(string: self.baseURL + path)!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let session { request.setValue("Bearer \(session)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, data)
    }
}

struct ProcessError: Error, CustomStringConvertible {
    var description: String
}
