/// Progress callbacks for a chat's file transfers: uploads (`/send`) and downloads (received attachments).
public struct ChatTransfers: Sendable {
    public var upload: TransferProgress?
    public var download: TransferProgress?

    public init(upload: TransferProgress? = nil, download: TransferProgress? = nil) {
        self.upload = upload
        self.download = download
    }
}
