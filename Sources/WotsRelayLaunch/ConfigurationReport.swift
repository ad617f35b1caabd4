/// What `serve --check-config` prints: every setting, its effective value with secrets hidden, and its source.
package struct ConfigurationReport: Sendable {
    package var sources: ServeConfigurationSources

    package init(sources: ServeConfigurationSources) {
        self.sources = sources
    }

    package var text: String {
        let rows = self.sources.settings.map { setting in
            let shown = setting.values.map { SecretMask.masked($0, optionName: setting.option.name) }
            let value = shown.isEmpty ? "(unset)" : shown.joined(separator: ", ")
            return ("--" + setting.option.name, value, setting.source.description)
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = min(40, rows.map(\.1.count).max() ?? 0)
        var lines = ["configuration is valid; effective settings (precedence: flag, environment, file, default):"]
        for (name, value, source) in rows {
            lines.append(
                "  " + Self.padded(name, to: nameWidth) + "  " + Self.padded(value, to: valueWidth) + "  " + source
            )
        }
        if !self.sources.ignoredEnvironment.isEmpty {
            lines.append(
                "ignored environment (not serve settings): " + self.sources.ignoredEnvironment.joined(separator: ", ")
            )
        }
        if !self.sources.ignoredFileKeys.isEmpty {
            lines.append("ignored file keys (not WOTS_): " + self.sources.ignoredFileKeys.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
