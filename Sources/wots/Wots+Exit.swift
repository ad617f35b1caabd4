import ArgumentParser
import Foundation
import WotsCore

/// The exit statuses README's table lists, and the one stderr line each failure gets.
extension Wots {
    enum ExitStatus {
        static let failure: Int32 = 1
        /// EX_USAGE, as swift-argument-parser uses for parse and validation errors.
        static let usage: Int32 = 64
        /// The relay's transparency log failed a check: a fork or rollback, an entry it does not prove.
        static let logRefused: Int32 = 3
        /// `wots send --wait-delivered`: sent, but the recipient's client did not confirm it in time.
        static let unconfirmed: Int32 = 4
        static let logRefusals: Set<ErrorCode> = [.logForked, .invalidProof, .unverifiedNote, .wrongLogOrigin]
        /// 128 + SIGINT, what a shell reports for a command ended with Ctrl-C.
        static let interrupted: Int32 = 130
    }

    /// Ends the process for `error`: help and completion scripts as the parser prints them (status 0); a usage error
    /// as one line naming the command's help (64); anything else as one line (1).
    static func finish(with error: any Error) -> Never {
        if let error = error as? WotsError {
            if ExitStatus.logRefusals.contains(error.code) {
                Terminal.note("wots: \(error.reason)")
                Foundation.exit(ExitStatus.logRefused)
            }
            Terminal.fail(error.reason)
        }
        if error is CancellationError { Foundation.exit(ExitStatus.interrupted) }
        let code = Self.exitCode(for: error)
        if code == .success { Self.exit(withError: error) }
        if code == .validationFailure {
            Terminal.note("wots: " + Self.usageLine(for: error))
            Foundation.exit(ExitStatus.usage)
        }
        let message = Self.oneLine(Self.message(for: error))
        // A bare ExitCode carries no message: its status is the whole answer.
        if message.isEmpty { Foundation.exit(code.rawValue) }
        Terminal.fail(message)
    }

    /// The parser's message on one line, a hint for values that look like options, and where help is.
    static func usageLine(for error: any Error, arguments: [String] = CommandLine.arguments) -> String {
        var line = Self.oneLine(Self.message(for: error))
        if let hint = Self.dashHint(for: line, arguments: arguments) { line += "; " + hint }
        let full = Self.fullMessage(for: error)
        if let start = full.range(of: "See '"), let end = full[start.upperBound...].firstIndex(of: "'") {
            line += "; see `\(full[start.upperBound..<end])`"
        }
        return line
    }

    /// For `--nick -dash`: the parser reads `-dash` as an option and reports the value missing.
    static func dashHint(for message: String, arguments: [String]) -> String? {
        guard message.hasPrefix("Missing value for '--") else { return nil }
        let name = message.dropFirst("Missing value for '".count).prefix { $0 != " " && $0 != "'" }
        guard let index = arguments.firstIndex(of: String(name)), index + 1 < arguments.count,
            arguments[index + 1].hasPrefix("-")
        else { return nil }
        return "a value that starts with \"-\" must be attached with \"=\": \(name)=\(arguments[index + 1])"
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
