import Foundation

/// Hides secrets in configuration values shown to the operator.
///
/// A whole value is hidden when its option's name says it is a secret (`password`, `secret`, `token`, `passphrase`);
/// in any other value, the password of a `scheme://user:password@host` address is hidden. File paths (`--tls-key`)
/// are shown: the path is not the secret, the file is.
package enum SecretMask {
    package static let placeholder = "********"
    private static let secretWords = ["password", "secret", "token", "passphrase"]

    package static func masked(_ value: String, optionName: String) -> String {
        if Self.secretWords.contains(where: { optionName.contains($0) }) {
            return value.isEmpty ? value : Self.placeholder
        }
        return Self.maskingURLPassword(value)
    }

    private static func maskingURLPassword(_ value: String) -> String {
        guard let schemeEnd = value.range(of: "://") else { return value }
        let rest = value[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return value
        }
        return String(value[..<rest.index(after: colon)]) + Self.placeholder + String(value[at...])
    }
}
