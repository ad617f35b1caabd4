public import Foundation
public import WotsCore

extension LocalStore.FileName {
    /// What each peer's latest `profile` message said, by token: readable without the secret (`wots directory show`).
    public static let peerAvatars = "peer-avatars.json"
}

extension LocalStore {
    /// Where peers' image avatars are saved (mode 0700; each file 0600).
    public var avatarsFolder: URL { self.home.appendingPathComponent("avatars", isDirectory: true) }

    /// The avatar `peer` last sent in a `profile` message; nil when none arrived yet.
    /// - Throws: `WotsError.localStore` when the file is damaged.
    public func peerAvatar(of peer: Token) throws -> PeerAvatar? {
        try self.read([String: PeerAvatar].self, from: FileName.peerAvatars)?[peer.description]
    }

    /// Keeps the avatar `peer` sent, replacing the one before.
    func savePeerAvatar(_ avatar: PeerAvatar, of peer: Token) throws {
        var known = try self.read([String: PeerAvatar].self, from: FileName.peerAvatars) ?? [:]
        known[peer.description] = avatar
        try self.write(known, to: FileName.peerAvatars)
    }
}
