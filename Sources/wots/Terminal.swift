import Foundation
import Glibc
import Logging
import WotsClient
import WotsCore
import WotsCrypto

/// Writes to stdout and stderr unbuffered (so `listen` lines reach a pipe at once), and formats for people.
enum Terminal {
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Log lines go to stderr; errors only unless `WOTS_LOG_LEVEL` says otherwise.
    static let logger: Logger = {
        var logger = Logger(label: "wots") { label in StreamLogHandler.standardError(label: label) }
        let level = ProcessInfo.processInfo.environment["WOTS_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) }
        logger.logLevel = level ?? .error
        return logger
    }()

    /// One line (or several) on stdout, written immediately.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// One line on stderr.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A progress line on stderr, only when stderr is a terminal; overwritten by the next.
    static func progress(_ text: String) {
        guard Self.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    static func endProgress() {
        guard Self.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// The one error line, then exit status 1.
    static func fail(_ reason: String) -> Never {
        Self.note("wots: \(reason)")
        exit(1)
    }

    /// One JSON value on one line, with the wire coders (stable key order).
    static func json(_ value: some Encodable, pretty: Bool = false) throws {
        let encoder = WireCoding.makeEncoder()
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        Self.out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Local time, to the second.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Text from someone else, made safe for a terminal: control characters (escape sequences) are shown as `?`,
    /// newlines and tabs kept.
    static func safe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    if scalar == "\n" || scalar == "\t" { return scalar }
                    switch scalar.properties.generalCategory {
                    case .control, .format, .lineSeparator, .paragraphSeparator: return "?"
                    default: return scalar
                    }
                }
            )
        )
    }

    /// A received message as people read it: `[time] sender: text`, continuation lines indented; an invalid message
    /// says so and why, and never shows text.
    static func describe(_ message: ReceivedMessage) -> String {
        let stamp = "[\(Self.time(message.sentAt))]"
        let sender = Self.safe(message.senderName)
        if message.isValid, message.text == nil, message.attachment == nil, let content = message.body?.content {
            return "\(stamp) \(sender): " + Self.describe(content)
        }
        guard message.isValid, let text = Self.attachmentLine(message) ?? message.text else {
            let problem = message.problem.map { "\($0.code): \(Self.safe($0.message))" } ?? "unreadable"
            let kept = message.acknowledge ? "" : " (kept in the mailbox)"
            return
                "\(stamp) ✗ message \(message.id.uuidString.lowercased()) from \(sender) NOT SHOWN: \(problem)\(kept)"
        }
        let lines = Self.safe(text).split(separator: "\n", omittingEmptySubsequences: false)
        let indent = String(repeating: " ", count: stamp.count + 1)
        let notes = message.warnings.map { warning -> String in
            switch warning {
            case .datedInFuture: " (dated in the future: the sender's clock is wrong, or the date is false)"
            case .sentBeforeRestore: " (sent before this home restored the account: it may be an old message again)"
            }
        }
        return "\(stamp) \(sender): " + lines.joined(separator: "\n" + indent) + notes.joined()
    }

    /// `📎 report.pdf (2.0 MiB, application/pdf) saved to PATH` and the caption below, for an attachment message.
    static func attachmentLine(_ message: ReceivedMessage) -> String? {
        guard let attachment = message.attachment else { return nil }
        let size = String(format: "%.1f MiB", Double(attachment.size) / 1_048_576)
        let saved = message.savedTo.map { " saved to \($0)" } ?? " (not downloaded)"
        let line = "📎 \(attachment.name) (\(size), \(attachment.mediaType))\(saved)"
        return message.text.map { line + "\n" + $0 } ?? line
    }

    /// `your message ID to bob expired undelivered after 30 days`.
    static func describe(_ expired: ExpiredMessage) -> String {
        let recipient = expired.to.map { Self.safe($0.value) } ?? "\(expired.toToken)"
        return "your message \(expired.id.lowercasedString) to \(recipient) expired undelivered after "
            + Self.span(expired.waited)
    }

    /// A whole number of the largest unit that fits: `30 days`, `1 hour`, `2 seconds`.
    static func span(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        for (unit, length) in [("day", Int64(86_400)), ("hour", 3_600), ("minute", 60)] where seconds >= length {
            let count = seconds / length
            return "\(count) \(unit)\(count == 1 ? "" : "s")"
        }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }

    static func status(_ status: StreamClient.Status, url: String) {
        switch status {
        case .connected:
            if Self.stderrIsTerminal { Self.note("connected to \(url)") }
        case .disconnected(let reason, let retryIn):
            Self.note("wots: disconnected (\(reason)); reconnecting in \(String(format: "%.1f", retryIn.seconds)) s")
        }
    }
}

extension Terminal {
    /// A history line: `[time] alice: text ✓✓`; attachments by name and size; a disappearing one says so.
    static func describe(_ item: HistoryItem) -> String {
        let stamp = "[\(Self.time(item.sentAt))]"
        let sender = Self.safe(item.from?.value ?? "token \(item.fromToken)")
        let body: String
        if let text = item.text {
            body = Self.safe(text)
        } else if let attachment = item.attachment {
            let caption = attachment.caption.map { " — " + Self.safe($0) } ?? ""
            body = "[file \(Self.safe(attachment.name)), \(attachment.size) bytes]" + caption
        } else {
            body = "unsupported message (\(Self.safe(item.type)))"
        }
        let mark = item.isOutgoing ? " " + (item.receipts.map(Self.mark) ?? Self.mark(item.status)) : ""
        let timer = item.expiresAt.map { " (disappears at \(Self.time($0)))" } ?? ""
        return "\(stamp) \(sender): \(body)\(mark)\(timer)"
    }

    /// Content that is not text, in one line.
    static func describe(_ content: MessageContent) -> String {
        switch content {
        case .attachment(let reference):
            let caption = reference.caption.map { " — " + Self.safe($0) } ?? ""
            return "[file \(Self.safe(reference.name)), \(reference.size) bytes]" + caption
        default:
            return "unsupported message (\(Self.safe(content.type)))"
        }
    }

    /// How far a sent message got: ✓ sent, ✓✓ delivered, ✓✓ read.
    static func mark(_ status: HistoryEntry.Status) -> String {
        switch status {
        case .sent: "✓"
        case .delivered: "✓✓"
        case .read: "✓✓ read"
        case .received: ""
        }
    }
}
