/// Who may register on a relay (`wots-relay serve --registration`).
public enum RegistrationMode: String, Sendable, Hashable, CaseIterable {
    /// Anyone may register. The default: a personal relay's owner registers before sharing its address.
    case open
    /// Only with an invite code from `wots-relay admin invites create`; each code admits as many registrations as
    /// it has uses.
    case invite
    /// Nobody may register; existing accounts keep working.
    case closed
}
