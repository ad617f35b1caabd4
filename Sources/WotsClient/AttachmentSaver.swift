public import Foundation
public import WotsCore
import WotsCrypto

/// What a recipient needs to fetch, check and save one attachment: the fields of an attachment message.
public struct AttachmentDownload: Sendable, Hashable {
    public var blob: BlobID
    /// The file key, 32 bytes.
    public var key: [UInt8]
    /// SHA-256 of the whole blob.
    public var digest: [UInt8]
    /// Plaintext bytes.
    public var size: Int64
    /// The file name the sender gave; only its last component, cleaned, is used.
    public var name: String

    public init(blob: BlobID, key: [UInt8], digest: [UInt8], size: Int64, name: String) {
        self.blob = blob
        self.key = key
        self.digest = digest
        self.size = size
        self.name = name
    }
}

/// Downloads an attachment's blob, checks and decrypts it beside the download folder's files, then gives it a name
/// no file has yet (`name`, `name (1)`, …), so nothing is ever overwritten and a corrupt attachment leaves nothing.
public struct AttachmentSaver: Sendable {
    /// Where attachments are saved.
    public let folder: URL
    /// Whether a saved attachment is acknowledged to the relay (which deletes the blob once every recipient did).
    /// Default true; `wots inbox --keep` leaves it at the relay.
    public var acknowledges: Bool

    public init(folder: URL, acknowledges: Bool = true) {
        self.folder = folder
        self.acknowledges = acknowledges
    }

    /// The default download folder: `$XDG_DOWNLOAD_DIR/wots`, else `~/Downloads/wots`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_DOWNLOAD_DIR"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("wots")
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent("Downloads").appendingPathComponent("wots")
    }

    /// Fetches, verifies, decrypts and saves the attachment, then tells the relay this recipient has it.
    /// - Returns: the saved file.
    /// - Throws: `attachment_corrupt` when the blob is not what the message announced (nothing is saved), the
    ///   relay's refusal (`unknown_blob` once it is gone), `invalid_input` when the folder cannot be written.
    public func save(
        _ attachment: AttachmentDownload,
        from relay: RelayClient,
        progress: TransferProgress? = nil
    ) async throws -> URL {
        let cipher = try AttachmentCipher(key: attachment.key)
        try self.makeFolder()
        // Hidden names in the same folder, so the final link is a rename within one file system.
        let blobFile = self.folder.appendingPathComponent(".wots-\(attachment.blob).blob").path
        let plainFile = self.folder.appendingPathComponent(".wots-\(attachment.blob).part").path
        defer { try? FileManager.default.removeItem(atPath: plainFile) }
        let encryptedSize = AttachmentCipher.encryptedSize(plaintextSize: attachment.size)
        try await relay.downloadBlob(attachment.blob, to: blobFile, size: encryptedSize, progress: progress)
        do {
            try cipher.decrypt(fileAt: blobFile, to: plainFile, size: attachment.size, digest: attachment.digest)
        } catch let error as WotsError where error.code == .attachmentCorrupt {
            try? FileManager.default.removeItem(atPath: blobFile)
            throw error
        }
        let saved = try self.link(plainFile, as: Self.safeName(attachment.name))
        try? FileManager.default.removeItem(atPath: blobFile)
        if self.acknowledges { try await relay.acknowledgeBlob(attachment.blob) }
        return saved
    }

    private func makeFolder() throws {
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            throw WotsError(.invalidInput, "cannot create the download folder \(self.folder.path)")
        }
    }

    /// Hard-links `path` under the first free name; `link` fails rather than replace an existing file, so two
    /// savers racing for one name both end with a file of their own.
    private func link(_ path: String, as name: String) throws -> URL {
        let (stem, suffix) = Self.split(name)
        for attempt in 0..<10_000 {
            let candidate = attempt == 0 ? name : "\(stem) (\(attempt))\(suffix)"
            let target = self.folder.appendingPathComponent(candidate)
            if Foundation.link(path, target.path) == 0 { return target }
            guard errno == EEXIST else {
                throw WotsError(.invalidInput, "cannot save \(target.path) (errno \(errno))")
            }
        }
        throw WotsError(.invalidInput, "no free name for \(name) in \(self.folder.path)")
    }

    /// The sender's name reduced to one harmless file name: no folders, no control characters, not hidden, not empty.
    static func safeName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(
            last.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init)
        )
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        if cleaned.utf8.count > 200 { cleaned = String(cleaned.prefix(100)) }
        return cleaned.isEmpty ? "attachment" : cleaned
    }

    /// `photo.jpg` → (`photo`, `.jpg`); a name without a dot has no suffix.
    static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
