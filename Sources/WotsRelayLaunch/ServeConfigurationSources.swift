import Foundation
import WotsCore

/// The `serve` settings gathered from the command line, the environment and a `--config` file.
///
/// A setting given as a flag wins; otherwise its `WOTS_` environment variable; otherwise the file's line; otherwise
/// the parser's default. Values from the environment and the file are handed to the parser as `--name=value`
/// arguments, so they are checked exactly as flags are.
package struct ServeConfigurationSources: Sendable {
    package var settings: [ResolvedSetting]
    /// The `serve` arguments with the environment's and the file's settings appended.
    package var arguments: [String]
    /// `WOTS_` variables in the environment that set no `serve` setting (the `wots` CLI's, or a typo).
    package var ignoredEnvironment: [String]
    /// Keys in the file that are not `WOTS_` settings: systemd would export them, `serve` leaves them alone.
    package var ignoredFileKeys: [String]

    /// - Parameters:
    ///   - arguments: what follows `serve` on the command line.
    ///   - environment: the process environment.
    ///   - options: the settings `serve` declares.
    ///   - readFile: reads the `--config` file.
    /// - Throws: `invalid_argument` for an unreadable or malformed file, an unknown `WOTS_` key in the file, or a
    ///   flag's value that is not a boolean.
    package static func resolve(
        arguments: [String],
        environment: [String: String],
        options: [ServeOption],
        readFile: (String) throws -> EnvironmentFile = EnvironmentFile.read(path:)
    ) throws -> ServeConfigurationSources {
        let commandLine = CommandLineSettings(arguments: arguments, options: options)
        let file = try commandLine.configPath.map(readFile)
        var fromFile: [String: (value: String, source: ConfigurationSource)] = [:]
        var ignoredFileKeys: [String] = []
        for entry in file?.entries ?? [] {
            guard entry.key.hasPrefix("WOTS_") else {
                ignoredFileKeys.append(entry.key)
                continue
            }
            guard let option = Self.option(forKey: entry.key, in: options) else {
                throw WotsError(
                    .invalidArgument,
                    "\(file?.path ?? ""):\(entry.line): \(entry.key) is not a serve setting "
                        + "(each --name of wots-relay serve --help is WOTS_NAME)"
                )
            }
            if entry.value.isEmpty || Self.shadows(key: entry.key, option: option, in: fromFile) { continue }
            let source = ConfigurationSource.file(path: file?.path ?? "", line: entry.line, key: entry.key)
            fromFile[option.name] = (entry.value, source)
        }
        var ignoredEnvironment: [String] = []
        var fromEnvironment: [String: (value: String, source: ConfigurationSource)] = [:]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) where key.hasPrefix("WOTS_") {
            guard let option = Self.option(forKey: key, in: options) else {
                ignoredEnvironment.append(key)
                continue
            }
            if value.isEmpty || Self.shadows(key: key, option: option, in: fromEnvironment) { continue }
            fromEnvironment[option.name] = (value, .environment(key: key))
        }
        var resolved = ServeConfigurationSources(
            settings: [],
            arguments: arguments,
            ignoredEnvironment: ignoredEnvironment,
            ignoredFileKeys: ignoredFileKeys
        )
        for option in options {
            if let values = commandLine.values[option.name] {
                resolved.settings.append(ResolvedSetting(option: option, values: values, source: .flag))
            } else if let (value, source) = fromEnvironment[option.name] ?? fromFile[option.name] {
                let values = try Self.values(value, of: option, source: source)
                resolved.arguments += Self.arguments(values, of: option)
                resolved.settings.append(ResolvedSetting(option: option, values: values, source: source))
            } else {
                let values = option.defaultValue.map { [$0] } ?? (option.kind == .flag ? ["false"] : [])
                resolved.settings.append(ResolvedSetting(option: option, values: values, source: .default))
            }
        }
        return resolved
    }

    private static func option(forKey key: String, in options: [ServeOption]) -> ServeOption? {
        if let name = ServeOption.aliases[key] { return options.first { $0.name == name } }
        return options.first { $0.environmentKey == key }
    }

    /// An alias never overrides the setting's own key, whichever comes first.
    private static func shadows(
        key: String,
        option: ServeOption,
        in found: [String: (value: String, source: ConfigurationSource)]
    ) -> Bool {
        guard key != option.environmentKey, let existing = found[option.name] else { return false }
        switch existing.source {
        case .environment(let existingKey), .file(_, _, let existingKey): return existingKey == option.environmentKey
        case .flag, .default: return false
        }
    }

    private static func values(_ text: String, of option: ServeOption, source: ConfigurationSource) throws -> [String] {
        switch option.kind {
        case .option where option.isRepeating:
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .option:
            return [text]
        case .flag:
            guard let value = BooleanText.parse(text) else {
                throw WotsError(
                    .invalidArgument,
                    "\(source): \"\(text.prefix(40))\" is not a boolean (\(BooleanText.accepted))"
                )
            }
            return [String(value)]
        }
    }

    private static func arguments(_ values: [String], of option: ServeOption) -> [String] {
        switch option.kind {
        case .option: return values.map { "--\(option.name)=\($0)" }
        case .flag where values == ["true"]: return ["--\(option.name)"]
        case .flag: return option.inversion.map { ["--\($0)"] } ?? []
        }
    }
}
