import ArgumentParser
import Foundation
import WotsClient

/// Where `inbox`, `listen` and `chat` save attachments.
struct DownloadOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Folder attachments are saved in (created if missing); default $XDG_DOWNLOAD_DIR/wots, else ~/Downloads/wots.",
            discussion: "A file is never overwritten: a taken name gets \" (1)\", \" (2)\", … before its extension.",
            valueName: "DIR"
        )
    )
    var downloadDir: String?

    /// - Parameter acknowledging: whether saved attachments are acknowledged to the relay (not with `--keep`).
    func saver(acknowledging: Bool = true) -> AttachmentSaver {
        AttachmentSaver(
            folder: self.downloadDir.map { URL(fileURLWithPath: $0) } ?? AttachmentSaver.defaultFolder(),
            acknowledges: acknowledging
        )
    }
}
