import WotsCore

/// A chat line that is a command rather than a message: `/disappear 2s|5m|1h|1d|off`.
enum ChatCommand: Hashable {
    case disappear(UInt32)

    /// nil for a line that is a message (it does not start with `/disappear`).
    /// - Throws: `WotsError.invalidInput` for a command with a value it cannot use.
    init?(_ line: String) throws {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.first == "/disappear" else { return nil }
        guard words.count == 2 else {
            throw WotsError(.invalidInput, "usage: /disappear DURATION (2s, 5m, 1h, 1d) or /disappear off")
        }
        self = .disappear(try Self.seconds(String(words[1])))
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
