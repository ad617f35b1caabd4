/// The `serve` settings present on the command line itself, found without parsing the rest.
package struct CommandLineSettings: Sendable {
    /// Values by option name; a flag reads `true`, or `false` when its `--no-…` form was given.
    package var values: [String: [String]] = [:]
    /// The value of `--config`, when given.
    package var configPath: String?

    package init(arguments: [String], options: [ServeOption]) {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            var inline: String? = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            if name == "config" {
                if inline == nil, index < arguments.endIndex {
                    inline = arguments[index]
                    index += 1
                }
                self.configPath = inline
            } else if let option = options.first(where: { $0.name == name }) {
                switch option.kind {
                case .flag:
                    self.values[option.name] = ["true"]
                case .option:
                    if inline == nil, index < arguments.endIndex {
                        inline = arguments[index]
                        index += 1
                    }
                    self.values[option.name, default: []].append(inline ?? "")
                    if !option.isRepeating { self.values[option.name] = [inline ?? ""] }
                }
            } else if let option = options.first(where: { $0.inversion == name }) {
                self.values[option.name] = ["false"]
            }
        }
    }
}
