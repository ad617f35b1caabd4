import WotsClient
import WotsCore

extension Terminal {
    /// `tiger`, `image, saved at PATH`, or `not received yet`: a peer's avatar as their `profile` message told it.
    static func describe(_ avatar: PeerAvatar?) -> String {
        switch avatar {
        case .preset(let preset)?: preset.rawValue
        case .image(let path)?: "image, saved at \(Self.safe(path))"
        case nil: "not received yet"
        }
    }
}
