import Foundation

/// Figures about a process, read from `/proc`.
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

/// The relay's and this load generator's CPU over one shape, watched together.
struct PhaseCPU {
    let relay: CPUWatch
    let client: CPUWatch

    init(relayPID: Int32?) {
        self.relay = CPUWatch(pid: relayPID)
        self.client = CPUWatch.client()
    }

    /// `, relay CPU 0.93 cores, load generator CPU 0.41 cores`, leaving out a figure that cannot be read.
    var summary: String {
        (self.relay.coresBusy().map { String(format: ", relay CPU %.2f cores", $0) } ?? "")
            + (self.client.coresBusy().map { String(format: ", load generator CPU %.2f cores", $0) } ?? "")
    }
}
