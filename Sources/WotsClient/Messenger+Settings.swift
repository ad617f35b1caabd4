import Foundation
import WotsCore

/// The account's settings on this machine (`wots settings`), kept in the profile.
public struct AccountSettings: Sendable, Hashable, Codable {
    /// Whether senders are told when a person saw their messages. Default on.
    public var readReceipts: Bool
}

extension Messenger {
    /// The account's settings.
    /// - Throws: `WotsError.notRegistered`.
    public func settings() throws -> AccountSettings {
        AccountSettings(readReceipts: try self.store.account().profile.readReceipts ?? true)
    }

    /// Changes the given settings (nil leaves one as it is) and returns them all.
    /// - Throws: `WotsError.notRegistered`, `.localStore`.
    public func updateSettings(readReceipts: Bool?) throws -> AccountSettings {
        var account = try self.store.account()
        if let readReceipts { account.profile.readReceipts = readReceipts }
        try self.store.replace(account)
        return AccountSettings(readReceipts: account.profile.readReceipts ?? true)
    }
}
