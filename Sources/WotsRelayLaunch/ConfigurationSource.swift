/// Where the value of one `serve` setting came from. Precedence, highest first: flag, environment, file, default.
package enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    case flag
    case environment(key: String)
    case file(path: String, line: Int, key: String)
    case `default`

    package var description: String {
        switch self {
        case .flag: "flag"
        case .environment(let key): "environment \(key)"
        case .file(let path, let line, let key): "file \(path):\(line) \(key)"
        case .default: "default"
        }
    }
}

/// One `serve` setting with its effective value and where that came from.
package struct ResolvedSetting: Sendable, Equatable {
    package var option: ServeOption
    /// Empty when the setting has no value (an optional option left unset, a flag left off).
    package var values: [String]
    package var source: ConfigurationSource
}
