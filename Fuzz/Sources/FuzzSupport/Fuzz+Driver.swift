import CLibFuzzer
import Foundation

extension Fuzz {
    /// The target the driver calls; set once by `run` before the driver starts.
    nonisolated(unsafe) fileprivate static var target: (([UInt8]) -> Void)?

    /// Hands the command line to libFuzzer, which calls `target` with each input, and exits with its status.
    public static func run(_ target: @escaping ([UInt8]) -> Void) -> Never {
        Self.target = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in testOneInput(data, size) })
    }
}

/// libFuzzer's archive brings its own `main` (unused: SwiftPM aliases `main` to the module's entry point), which
/// needs this symbol to link; `Fuzz.run` passes the same function to the driver.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Fuzz.target?(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
