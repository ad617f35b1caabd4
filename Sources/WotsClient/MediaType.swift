/// The media type an attachment is announced with, from its file name's extension.
enum MediaType {
    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "svg": "image/svg+xml", "pdf": "application/pdf", "txt": "text/plain",
        "md": "text/markdown", "csv": "text/csv", "json": "application/json", "zip": "application/zip",
        "gz": "application/gzip", "tar": "application/x-tar", "mp3": "audio/mpeg", "ogg": "audio/ogg",
        "m4a": "audio/mp4", "wav": "audio/wav", "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "doc": "application/msword", "odt": "application/vnd.oasis.opendocument.text",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ]

    /// `application/octet-stream` when the extension is unknown.
    static func guess(forName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return Self.byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
