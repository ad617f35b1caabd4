/// The boolean spellings systemd accepts, for flags set from the environment or a configuration file.
package enum BooleanText {
    package static let accepted = "1, yes, y, true, t, on or 0, no, n, false, f, off; any case"

    package static func parse(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }
}
