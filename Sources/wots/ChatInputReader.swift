import Foundation
import Glibc
import WotsClient

/// Reads what the person types in `wots chat`. On a terminal, key by key (the terminal's own line editing off, its
/// echo done here), so each key can tell the peer "typing"; Backspace and Ctrl-U edit the line, Enter sends it,
/// Ctrl-D on an empty line ends the chat. Elsewhere (a pipe), line by line.
enum ChatInputReader {
    /// The terminal's settings before the chat changed them, restored when the chat ends or is interrupted.
    // nonisolated(unsafe): written once before the reader thread and the signal handlers exist, then only read.
    nonisolated(unsafe) private static var saved = termios()

    static func open() -> AsyncStream<ChatInput> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChatInput.self)
        guard Terminal.stdinIsTerminal, Self.enterKeyMode() else {
            // readLine blocks, so it gets its own thread rather than one of the few cooperative ones.
            Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(.line(line)) }
                continuation.finish()
            }.start()
            return stream
        }
        Thread {
            Self.readKeys(into: continuation)
            Self.restore()
            continuation.finish()
        }.start()
        return stream
    }

    private static func enterKeyMode() -> Bool {
        guard tcgetattr(STDIN_FILENO, &Self.saved) == 0 else { return false }
        var raw = Self.saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VMIN)] = 1 }
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VTIME)] = 0 }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }
        atexit { ChatInputReader.restore() }
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(signal) { number in
                ChatInputReader.restore()
                _exit(128 + number)
            }
        }
        return true
    }

    private static func restore() { tcsetattr(STDIN_FILENO, TCSANOW, &Self.saved) }

    private static func readKeys(into continuation: AsyncStream<ChatInput>.Continuation) {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var escape = EscapeState.none
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1 {
            // Arrow and function keys send ESC [ … or ESC O …; this simple editor skips them whole.
            switch escape {
            case .started:
                escape = byte == 0x5B || byte == 0x4F ? .sequence : .none
                continue
            case .sequence:
                if (0x40...0x7E).contains(byte) { escape = .none }
                continue
            case .none:
                break
            }
            switch byte {
            case 0x1B:
                escape = .started
            case 0x04 where line.isEmpty:  // Ctrl-D
                return
            case 0x0A, 0x0D:
                Self.echo("\n")
                continuation.yield(.line(String(decoding: line, as: UTF8.self)))
                line.removeAll()
            case 0x7F, 0x08:  // Backspace: drop the last character, with its continuation bytes
                guard !line.isEmpty else { continue }
                while let last = line.popLast(), last & 0xC0 == 0x80 {}
                Self.echo("\u{8} \u{8}")
            case 0x15:  // Ctrl-U
                line.removeAll()
                Self.echo("\r\u{1B}[K")
            case ..<0x20:
                continue
            default:
                line.append(byte)
                _ = withUnsafePointer(to: byte) { Glibc.write(STDOUT_FILENO, $0, 1) }
                continuation.yield(.keystroke)
            }
        }
    }

    private enum EscapeState { case none, started, sequence }

    private static func echo(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
}
