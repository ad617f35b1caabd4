import COpenSSL
import WotsCore

/// Reading and clearing OpenSSL's thread-local error queue.
enum OpenSSLError {
    /// Drains the error queue into one line, oldest first.
    static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            let message = buffer.withUnsafeMutableBufferPointer { pointer -> String in
                ERR_error_string_n(code, pointer.baseAddress, pointer.count)
                return String(cString: pointer.baseAddress!)
            }
            messages.append(message)
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }

    /// Forgets queued errors, after an expected failure such as a signature that does not verify.
    static func clear() { ERR_clear_error() }
}

extension WotsError {
    /// A `crypto_library` error naming the OpenSSL function that failed, with OpenSSL's own error string.
    static func openSSL(_ function: String, file: String = #fileID, line: Int = #line) -> WotsError {
        WotsError(.cryptoLibrary, "\(function) failed: \(OpenSSLError.drain())", file: file, line: line)
    }
}

/// Throws a `crypto_library` error unless an OpenSSL call returned 1.
@inline(__always)
func check(_ result: Int32, _ function: @autoclosure () -> String, file: String = #fileID, line: Int = #line) throws {
    guard result == 1 else { throw WotsError.openSSL(function(), file: file, line: line) }
}
