public import Foundation
import WotsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the user's secret comes from: a file, a value the caller read from `WOTS_SECRET`, or the terminal.
///
/// The secret is never logged, never stored and never part of an error message.
public enum SecretSource: Sendable {
    /// The first line of this file (a trailing newline is not part of the secret).
    case file(URL)
    /// A value given by the environment (`WOTS_SECRET`).
    case value(String)
    /// Ask on the controlling terminal with echo off.
    case terminal
    /// Ask through this function instead of the terminal (a caller with its own way of asking, or a test).
    case prompt(@Sendable (_ prompt: String) throws -> String)

    /// Whether the secret is asked for rather than given: only then may keys kept by `wots unlock` stand in for it.
    public var isInteractive: Bool {
        switch self {
        case .terminal, .prompt: true
        case .file, .value: false
        }
    }

    /// Whether this process has a controlling terminal to ask on.
    public static var terminalAvailable: Bool {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return false }
        close(tty)
        return true
    }

    /// The shortest secret `register` accepts.
    public static let minimumLength = 8

    /// Reads the secret.
    /// - Parameters:
    ///   - confirm: ask twice on the terminal and insist the two agree (for a new secret).
    ///   - prompt: what to ask, e.g. `"Secret for alice: "`.
    /// - Throws: `WotsError.secretUnavailable` when the file cannot be read, there is no terminal, or the two
    ///   entries differ.
    public func read(prompt: String, confirm: Bool = false) throws -> String {
        switch self {
        case .value(let secret):
            return secret
        case .file(let url):
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw WotsError(
                    .secretUnavailable,
                    "cannot read the secret file \(url.path): \(error.localizedDescription)"
                )
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw WotsError(.secretUnavailable, "the secret file \(url.path) is not UTF-8 text")
            }
            let secret = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            return secret.hasSuffix("\r") ? String(secret.dropLast()) : secret
        case .terminal, .prompt:
            let ask: (String) throws -> String
            if case .prompt(let function) = self { ask = function } else { ask = Self.ask }
            let first = try ask(prompt)
            if confirm {
                let second = try ask("Again, to confirm: ")
                guard first == second else {
                    throw WotsError(.secretUnavailable, "the two secrets you typed differ")
                }
            }
            return first
        }
    }

    /// Checks a new secret's length.
    /// - Throws: `WotsError.invalidInput` saying the minimum.
    public static func validateNew(_ secret: String) throws {
        guard secret.count >= Self.minimumLength else {
            throw WotsError(
                .invalidInput,
                "the secret is \(secret.count) characters (at least \(Self.minimumLength))"
            )
        }
    }

    /// Reads one line from `/dev/tty` with echo off.
    private static func ask(_ prompt: String) throws -> String {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw WotsError(
                .secretUnavailable,
                "no terminal to ask for the secret on; give --secret-file FILE or WOTS_SECRET"
            )
        }
        defer { close(tty) }
        var saved = termios()
        let hasTermios = tcgetattr(tty, &saved) == 0
        if hasTermios {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            // TCSAFLUSH discards what was typed before the prompt appeared (as glibc's getpass does), so a line typed
            // ahead is never taken for the secret.
            tcsetattr(tty, TCSAFLUSH, &silent)
        }
        defer { if hasTermios { tcsetattr(tty, TCSANOW, &saved) } }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(tty, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 || byte == 0x0A { break }
            bytes.append(byte)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return String(decoding: bytes, as: UTF8.self)
    }
}
