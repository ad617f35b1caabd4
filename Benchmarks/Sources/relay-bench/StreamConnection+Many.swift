import Logging

/// An open stream and the task its socket lives in until it is closed.
typealias OpenStream = (StreamConnection, Task<Void, Never>)

extension StreamConnection {
    /// Opens `sessions.count` connections, `parallel` at a time; each is ready (the relay said so) when this returns.
    static func openAll(
        url: String,
        sessions: [String],
        role: Role,
        collector: Collector,
        logger: Logger,
        parallel: Int = 64,
        acks: AckPolicy = .coalesced
    ) async throws -> [OpenStream] {
        var opened: [OpenStream?] = Array(repeating: nil, count: sessions.count)
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
                        logger: logger,
                        acks: acks
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

    /// Closes every connection and waits until each socket's task has ended.
    static func closeAll(_ connections: [OpenStream]) async {
        await withTaskGroup(of: Void.self) { group in
            for (connection, task) in connections {
                group.addTask {
                    await connection.close()
                    await task.value
                }
            }
        }
    }
}
