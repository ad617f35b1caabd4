import Synchronization

/// A small, typed, in-process publish/subscribe bus.
///
/// `publish` hands a value to every current subscriber of exactly that type; `subscribe(to:)` returns an
/// `EventSubscription`, an `AsyncSequence` of that type only. A subscriber whose iteration ends (it was cancelled,
/// it stopped iterating, or its subscription was released) is removed.
///
/// Buffering: each subscriber has its own bounded buffer (`bufferSize` events, default 256). When a subscriber
/// falls that far behind, the **oldest** buffered events are dropped to make room for new ones, so a slow subscriber
/// costs bounded memory and never slows the publisher or other subscribers. Events that must not be lost (messages)
/// are durable elsewhere; the bus only carries notifications about them.
public final class EventBus: Sendable {
    public static let defaultBufferSize = 256

    private struct State {
        var nextID: UInt64 = 0
        var sinks: [ObjectIdentifier: [UInt64: @Sendable (any Sendable) -> Void]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Delivers `event` to every current subscriber of `Event`, in the order `publish` is called.
    public func publish<Event: Sendable>(_ event: Event) {
        let sinks = self.state.withLock { state in
            state.sinks[ObjectIdentifier(Event.self)].map { Array($0.values) } ?? []
        }
        for sink in sinks {
            sink(event)
        }
    }

    /// Subscribes to events of one type.
    /// - Parameters:
    ///   - type: the event type; subscribers never see values of other types.
    ///   - bufferSize: how many undelivered events this subscriber may hold before the oldest are dropped.
    public func subscribe<Event: Sendable>(
        to type: Event.Type,
        bufferSize: Int = EventBus.defaultBufferSize
    ) -> EventSubscription<Event> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self,
            bufferingPolicy: .bufferingNewest(max(1, bufferSize))
        )
        let key = ObjectIdentifier(Event.self)
        let id = self.state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.sinks[key, default: [:]][id] = { value in
                if let event = value as? Event { continuation.yield(event) }
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.removeSink(key: key, id: id)
        }
        return EventSubscription(stream: stream)
    }

    /// How many subscribers `Event` currently has.
    public func subscriberCount<Event>(for type: Event.Type) -> Int {
        self.state.withLock { $0.sinks[ObjectIdentifier(type)]?.count ?? 0 }
    }

    private func removeSink(key: ObjectIdentifier, id: UInt64) {
        self.state.withLock { state in
            state.sinks[key]?[id] = nil
            if state.sinks[key]?.isEmpty == true { state.sinks[key] = nil }
        }
    }
}

/// The events of one type published on an `EventBus` after subscribing, oldest dropped past the buffer size.
public struct EventSubscription<Event: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Event

    private let stream: AsyncStream<Event>

    init(stream: AsyncStream<Event>) { self.stream = stream }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Event>.AsyncIterator

        public mutating func next() async -> Event? { await self.base.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Event? {
            await self.base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self.stream.makeAsyncIterator()) }
}
