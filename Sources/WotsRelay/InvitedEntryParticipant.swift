import WotsCore
import WotsStorage

/// The directory as the public half of a registration by invitation: the entry and one use of the invite are written
/// in one transaction, and taken back together.
struct InvitedEntryParticipant: SaveParticipant {
    let repository: any AdministrationRepository
    let codeHash: [UInt8]
    let attestation: [UInt8]

    func save(_ entry: DirectoryEntry) async throws {
        try await self.repository.create(
            entry,
            redeemingInviteHash: self.codeHash,
            now: entry.registeredAt,
            attestation: self.attestation
        )
    }

    func undo(_ entry: DirectoryEntry) async throws {
        try await self.repository.undoCreate(token: entry.token, restoringInviteHash: self.codeHash)
    }
}
