import COpenSSL
import Synchronization

/// Holds at most one spare, initialised EVP_PKEY_CTX for a key and operation, handing it to one caller at a time.
///
/// A context is not safe for concurrent use, so `take` removes it from the slot; concurrent callers that find the
/// slot empty make their own, and `put` keeps one and frees the rest.
final class ContextSlot: Sendable {
    // OpaquePointer is not Sendable; the address is only moved in and out under the lock, never shared.
    private struct Spare: @unchecked Sendable {
        var pointer: OpaquePointer?
    }

    private let spare = Mutex(Spare(pointer: nil))

    func take() -> OpaquePointer? {
        let taken = self.spare.withLock { spare -> Spare in
            defer { spare.pointer = nil }
            return spare
        }
        return taken.pointer
    }

    func put(_ context: OpaquePointer) {
        let offered = Spare(pointer: context)
        let extra = self.spare.withLock { spare -> Spare in
            guard spare.pointer == nil else { return offered }
            spare = offered
            return Spare(pointer: nil)
        }
        if let pointer = extra.pointer { EVP_PKEY_CTX_free(pointer) }
    }

    /// Frees the spare context, if any.
    func drain() {
        if let context = self.take() { EVP_PKEY_CTX_free(context) }
    }
}
