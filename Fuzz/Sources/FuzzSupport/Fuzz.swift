public import Foundation
import WotsCore

/// What every fuzz target shares: the input as bytes, what counts as a clean refusal, and invariants whose breach
/// stops the fuzzer (a trap, which libFuzzer reports as a crash and saves the input for).
public enum Fuzz {
    /// Stops the run when `condition` is false.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant broken: \(message())") }
    }

    /// Runs a decoder that must either succeed or refuse with a `WotsError`; any other error stops the run.
    public static func wotsErrorOrValue<Value>(_ decode: () throws -> Value) -> Value? {
        do {
            return try decode()
        } catch is WotsError {
            return nil
        } catch {
            fatalError("refused with \(type(of: error)), not a WotsError: \(error)")
        }
    }

    /// Decodes `data` as the relay and the client do (`WireCoding`); any error is a refusal (the relay answers
    /// `invalid_json` or the `WotsError`'s code). A decoded value must encode, decode again to an equal value, and
    /// encode to the same bytes.
    /// - Parameter dates: the type holds dates, which the wire rounds to milliseconds: only the bytes are compared.
    @discardableResult
    public static func roundTripJSON<Value: Codable & Equatable>(
        _ type: Value.Type,
        _ data: Data,
        dates: Bool = false
    ) -> Value? {
        guard let value = try? WireCoding.makeDecoder().decode(type, from: data) else { return nil }
        let encoded: Data
        let again: Value
        do {
            encoded = try WireCoding.makeEncoder().encode(value)
            again = try WireCoding.makeDecoder().decode(type, from: encoded)
        } catch {
            fatalError("\(type) decoded but its own encoding does not decode: \(error)")
        }
        require(dates || again == value, "\(type) changed in a JSON round trip")
        require((try? WireCoding.makeEncoder().encode(again)) == encoded, "\(type) encodes unstably")
        return value
    }
}
