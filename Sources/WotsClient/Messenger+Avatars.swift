import Foundation
import WotsCore
import WotsCrypto

#if canImport(Glibc)
    import Glibc
#endif

extension Messenger {
    /// The `profile` content that tells `peer` this account's avatar: a preset's name, or the image uploaded as an
    /// encrypted blob listed for `peer` alone (as an attachment is); nil when the account has no avatar.
    func profileAvatar(for peer: Token, as unlocked: Unlocked) async throws -> ProfileAvatar? {
        switch unlocked.account.privateRecord.avatar {
        case nil:
            return nil
        case .preset(let preset):
            return .preset(preset)
        case .image(let bytes):
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("wots-avatar-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("avatar." + Self.imageExtension(bytes))
            try Data(bytes).write(to: file)
            return .image(try await self.uploadAttachment(at: file.path, caption: nil, for: peer, progress: nil))
        }
    }

    /// Downloads a valid `profile` message's image avatar and saves it (`saveAvatar`), recording the path in
    /// `savedTo`. A failure makes the message invalid with its reason; a transient one keeps it in the mailbox.
    /// - Parameter acknowledging: tell the relay this recipient has the blob (not for `inbox --keep`, which shows the
    ///   message again and must find the blob again).
    func fetchAvatar(of message: inout ReceivedMessage, acknowledging: Bool = true) async {
        guard message.isValid, case .profile(.image(let reference))? = message.body?.content else { return }
        do {
            message.savedTo = try await self.saveAvatar(
                reference,
                of: message.from?.value ?? "\(message.fromToken)",
                acknowledging: acknowledging
            ).path
        } catch let error as WotsError {
            message.problem = ReceivedMessage.Problem(code: error.code, message: "avatar: \(error.reason)")
            message.acknowledge = !Self.isTransient(error)
        } catch {
            message.problem = ReceivedMessage.Problem(code: .invalidAvatar, message: "avatar: \(error)")
        }
    }

    /// Downloads, checks (digest, every chunk, then PNG or JPEG of at most 64 KiB) and saves an image avatar as
    /// `avatars/NAME.png|jpg` (mode 0600), replacing that peer's previous one in one rename; then acknowledges the
    /// blob.
    /// - Throws: `invalid_avatar` for a too large or not PNG/JPEG image, `attachment_corrupt` for a blob that is not
    ///   what the message announced; nothing is saved then.
    func saveAvatar(_ reference: AttachmentReference, of name: String, acknowledging: Bool = true) async throws -> URL {
        guard reference.size <= UInt64(Avatar.maximumImageSize) else {
            throw WotsError(
                .invalidAvatar,
                "the image is \(reference.size) bytes (at most \(Avatar.maximumImageSize)); not downloaded"
            )
        }
        let download = try AttachmentDownload(reference)
        let folder = self.store.avatarsFolder
        try self.store.prepareHome()
        guard mkdir(folder.path, 0o700) == 0 || errno == EEXIST else {
            throw WotsError(.localStore, "cannot create folder \(folder.path): \(String(cString: strerror(errno)))")
        }
        let blobFile = folder.appendingPathComponent(".\(download.blob).blob").path
        let plainFile = folder.appendingPathComponent(".\(download.blob).part").path
        defer {
            try? FileManager.default.removeItem(atPath: blobFile)
            try? FileManager.default.removeItem(atPath: plainFile)
        }
        try await self.relay.downloadBlob(
            download.blob,
            to: blobFile,
            size: AttachmentCipher.encryptedSize(plaintextSize: download.size),
            progress: nil
        )
        try AttachmentCipher(key: download.key)
            .decrypt(fileAt: blobFile, to: plainFile, size: download.size, digest: download.digest)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: plainFile)))
        _ = try Avatar.validatedImage(bytes)
        let suffix = Self.imageExtension(bytes)
        let target = folder.appendingPathComponent("\(name).\(suffix)")
        guard chmod(plainFile, 0o600) == 0, rename(plainFile, target.path) == 0 else {
            throw WotsError(.localStore, "cannot save \(target.path): \(String(cString: strerror(errno)))")
        }
        for other in ["png", "jpg"] where other != suffix {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(name).\(other)"))
        }
        if acknowledging { _ = try? await self.relay.acknowledgeBlob(download.blob) }
        return target
    }

    /// `png` for PNG bytes, else `jpg` (the only other format an avatar may have).
    static func imageExtension(_ bytes: [UInt8]) -> String {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "png" : "jpg"
    }
}
