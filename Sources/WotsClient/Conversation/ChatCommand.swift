import Foundation
import WotsCore

/// A chat line that is a command rather than a message: `/disappear 2s|5m|1h|1d|off`, `/send PATH`, `/help`.
enum ChatCommand: Hashable {
    case disappear(UInt32)
    /// Send the file at this path as an encrypted attachment (`~` expanded).
    case send(path: String)
    case help

    /// What `/help` prints, one command a line.
    static let usage = """
        /send PATH            send the file as an encrypted attachment (as `wots send --file`)
        /disappear DURATION   set the disappearing timer for both sides: 30s, 5m, 1h, 1d or off
        /help                 this list
        """

    /// nil for a line that is a message (it does not start with `/disappear`, `/send` or `/help`).
    /// - Throws: `WotsError.invalidInput` for a command with a value it cannot use.
    init?(_ line: String) throws {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        switch words.first {
        case "/disappear":
            guard words.count == 2 else {
                throw WotsError(.invalidInput, "usage: /disappear DURATION (2s, 5m, 1h, 1d) or /disappear off")
            }
            self = .disappear(try Self.seconds(String(words[1])))
        case "/send":
            // The rest of the line is the path, spaces included.
            let path = line.drop { $0 == " " }.dropFirst("/send".count).trimmingCharacters(in: .whitespaces)
            guard !path.isEmpty else { throw WotsError(.invalidInput, "usage: /send PATH") }
            self = .send(path: NSString(string: path).expandingTildeInPath)
        case "/help":
            self = .help
        default:
            return nil
        }
    }

    /// Parses a disappearing timer: `off` is 0; else a whole number with s, m, h or d, up to 365 days.
    /// - Throws: `WotsError.invalidInput` naming the value and the rule.
    static func seconds(_ text: String) throws -> UInt32 {
        if text == "off" { return 0 }
        let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()), count > 0,
            count * unit <= UInt64(MessageBody.maximumDisappearAfter)
        else {
            throw WotsError(
                .invalidInput,
                "disappearing timer \"\(text.prefix(20))\" is not off or a whole number of s, m, h or d up to 365d"
            )
        }
        return UInt32(count * unit)
    }
}

extension Messenger {
    /// Parses a disappearing timer as `wots send --disappear` and `/disappear` take it: `off` (0) or a whole number
    /// of s, m, h or d up to 365 days.
    /// - Throws: `WotsError.invalidInput` naming the value and the rule.
    public static func disappearingTimer(_ text: String) throws -> UInt32 { try ChatCommand.seconds(text) }
}
