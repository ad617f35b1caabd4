import Testing
import WotsCore

private struct Ping: Sendable, Equatable { var number: Int }
private struct Pong: Sendable, Equatable { var number: Int }

@Suite struct EventBusTests {
    @Test func eachSubscriberReceivesEventsInPublishOrder() async {
        let bus = EventBus()
        let subscription = bus.subscribe(to: Ping.self)
        for number in 0..<100 { bus.publish(Ping(number: number)) }
        var received: [Int] = []
        for await ping in subscription {
            received.append(ping.number)
            if received.count == 100 { break }
        }
        #expect(received == Array(0..<100))
    }

    @Test func everySubscriberReceivesEveryEvent() async {
        let bus = EventBus()
        let subscriptions = (0..<10).map { _ in bus.subscribe(to: Ping.self) }
        for number in 0..<5 { bus.publish(Ping(number: number)) }
        for subscription in subscriptions {
            var received: [Int] = []
            for await ping in subscription {
                received.append(ping.number)
                if received.count == 5 { break }
            }
            #expect(received == [0, 1, 2, 3, 4])
        }
    }

    @Test func aSubscriberNeverSeesAnotherEventType() async {
        let bus = EventBus()
        let pongs = bus.subscribe(to: Pong.self)
        bus.publish(Ping(number: 1))
        bus.publish(Pong(number: 2))
        bus.publish(Ping(number: 3))
        var iterator = pongs.makeAsyncIterator()
        #expect(await iterator.next() == Pong(number: 2))
        #expect(bus.subscriberCount(for: Ping.self) == 0)
    }

    @Test func cancellingTheSubscriberRemovesIt() async {
        let bus = EventBus()
        let task = Task {
            for await _ in bus.subscribe(to: Ping.self) {}
        }
        while bus.subscriberCount(for: Ping.self) == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(bus.subscriberCount(for: Ping.self) == 0)
    }

    @Test func aSubscriberThatStopsIteratingIsRemoved() async {
        let bus = EventBus()
        do {
            let subscription = bus.subscribe(to: Ping.self)
            bus.publish(Ping(number: 1))
            for await _ in subscription { break }
        }
        bus.publish(Ping(number: 2))
        #expect(bus.subscriberCount(for: Ping.self) == 0)
    }

    @Test func aSlowSubscriberKeepsOnlyTheNewestEventsUpToItsBuffer() async {
        let bus = EventBus()
        let subscription = bus.subscribe(to: Ping.self, bufferSize: 3)
        for number in 0..<1_000 { bus.publish(Ping(number: number)) }
        var received: [Int] = []
        for await ping in subscription {
            received.append(ping.number)
            if received.count == 3 { break }
        }
        #expect(received == [997, 998, 999])
    }
}
