import Synchronization

/// A value set once by a concurrent task and read after it finished.
final class Box<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    init() {}

    func set(_ value: Value) { self.storage.withLock { $0 = value } }

    var value: Value? { self.storage.withLock { $0 } }
}
