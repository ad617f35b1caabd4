extension StreamConnection {
    /// Opens `sessions.count` connections, `parallel` at a time; each is ready (the relay said so) when this returns.
    static func openAll(
        url: String,
        sessions: [String],
        role: Role,
        collector: Collector,
        parallel: Int = 64,
        acks: AckPolicy = .coalesced
    ) async throws -> [StreamConnection] {
        var opened: [StreamConnection?] = Array(repeating: nil, count: sessions.count)
        try await withThrowingTaskGroup(of: (Int, StreamConnection).self) { group in
            var next = 0
            func add() {
                let index = next
                let session = sessions[index]
                next += 1
                group.addTask {
                    let connection = try await StreamConnection.open(
                        url: url,
                        session: session,
                        role: role,
                        collector: collector,
                        acks: acks
                    )
                    return (index, connection)
                }
            }
            while next < min(parallel, sessions.count) { add() }
            while let (index, connection) = try await group.next() {
                opened[index] = connection
                if next < sessions.count { add() }
            }
        }
        return opened.compactMap { $0 }
    }

    /// Closes every connection and waits until each socket has closed.
    static func closeAll(_ connections: [StreamConnection]) async {
        await withTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask { await connection.close() }
            }
        }
    }
}
