import Foundation
import WotsCore

/// A file of `KEY=VALUE` lines in the subset of systemd's `EnvironmentFile=` syntax that both readers agree on.
///
/// Blank lines and lines whose first non-blank character is `#` or `;` are comments. Whitespace around the key and
/// around an unquoted value is dropped. A value may be wrapped whole in single quotes (taken literally) or double
/// quotes (where `\"`, `\\`, `\$` and `` \` `` stand for the character after the backslash). Anything else (a line
/// without `=`, a key that is not a shell variable name, a quote left open, text after a closing quote, a line ending
/// in a backslash) is refused with its line number rather than read differently from systemd.
package struct EnvironmentFile: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var key: String
        package var value: String
        /// 1-based line number in the file.
        package var line: Int
    }

    package var path: String
    package var entries: [Entry]

    /// Reads and parses the file at `path`.
    /// - Throws: `invalid_argument` when the file cannot be read or a line breaks the syntax.
    package static func read(path: String) throws -> EnvironmentFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw WotsError(.invalidArgument, "--config \(path): cannot read the file (\(Self.reason(error)))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw WotsError(.invalidArgument, "--config \(path): the file is not UTF-8 text")
        }
        return try Self.parse(text, path: path)
    }

    /// Parses `text`; `path` only names the file in errors.
    package static func parse(_ text: String, path: String) throws -> EnvironmentFile {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            let number = index + 1
            func refuse(_ rule: String) -> WotsError {
                WotsError(.invalidArgument, "\(path):\(number): \(rule)")
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw refuse("\"\(trimmed.prefix(40))\" is not KEY=VALUE")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            guard Self.isVariableName(key) else {
                throw refuse("\"\(key.prefix(40))\" is not a variable name (letters, digits and _, not first a digit)")
            }
            let value = try Self.value(trimmed[trimmed.index(after: equals)...], refuse: refuse)
            entries.append(Entry(key: key, value: value, line: number))
        }
        return EnvironmentFile(path: path, entries: entries)
    }

    private static func value(_ raw: Substring, refuse: (String) -> WotsError) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("\\") { throw refuse("a line ending in \\ (continued lines are not supported)") }
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            if text.contains("\"") || text.contains("'") {
                throw refuse("quotes must wrap the whole value")
            }
            return text
        }
        var result = ""
        var escaped = false
        var closed = false
        for character in text.dropFirst() {
            if closed { throw refuse("text after the closing \(quote)") }
            if escaped {
                if !"\"\\$`".contains(character) { result.append("\\") }
                result.append(character)
                escaped = false
            } else if character == "\\" && quote == "\"" {
                escaped = true
            } else if character == quote {
                closed = true
            } else {
                result.append(character)
            }
        }
        guard closed else { throw refuse("the \(quote) quote is not closed on this line") }
        return result
    }

    private static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar)
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        return nsError.localizedDescription
    }
}
