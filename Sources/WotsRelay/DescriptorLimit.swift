#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections a relay can hold.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit (many systems start processes at 1,024 while allowing far more) and
    /// returns the soft limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Self.resource, &raised) == 0 { limit = raised }
        }
        return Self.clamp(limit.rlim_cur)
    }

    /// The soft limit in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return 1_024 }
        return Self.clamp(limit.rlim_cur)
    }

    /// The default connection cap for a descriptor limit: nine tenths of it, less 64 kept for the database (SQLite
    /// files and WAL, PostgreSQL pool), logs and the listening socket; at least 16.
    public static func connectionCap(forLimit limit: Int) -> Int {
        max(16, limit / 10 * 9 - 64)
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int32.max) ? Int(Int32.max) : Int(value)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
