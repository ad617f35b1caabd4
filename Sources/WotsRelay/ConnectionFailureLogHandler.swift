import Logging

/// The log handler Hummingbird's per-connection code gets: it logs a connection that ended before its first request
/// was read ("Error handling upgrade result": closed by a deadline, refused as malformed, or dropped by the peer) at
/// error level, once per such connection, although nothing on the relay failed. That line goes out at debug instead;
/// every other line passes unchanged.
struct ConnectionFailureLogHandler: LogHandler {
    var base: any LogHandler

    static let demotedMessages: Set<String> = ["Error handling upgrade result"]

    var logLevel: Logger.Level {
        get { self.base.logLevel }
        set { self.base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { self.base.metadata }
        set { self.base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.base[metadataKey: key] }
        set { self.base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level > .debug, Self.demotedMessages.contains(event.message.description) {
            event.level = .debug
            guard self.base.logLevel <= .debug else { return }
        }
        self.base.log(event: event)
    }
}
