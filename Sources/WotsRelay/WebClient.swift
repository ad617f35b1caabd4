public import Foundation
import WotsCore
import WotsCrypto

/// The browser client's static files, read once at start and served from memory by `WebClientMiddleware`.
///
/// Only `index.html` and the folders `css`, `js` and `img` of the client's folder are served, so its tests and tools
/// (`web/test`, `web/tools`) stay private. Each file's ETag is its SHA-256: ES modules import each other by plain
/// relative names, so content-hashed file names would need a build step; instead every response says `no-cache`
/// and the browser revalidates with `If-None-Match`, getting a body-less 304 until the file changes.
public struct WebClient: Sendable {
    /// One file ready to serve.
    public struct File: Sendable {
        public var body: [UInt8]
        public var contentType: String
        /// A strong ETag: the quoted hex SHA-256 of the body.
        public var entityTag: String
    }

    /// The folders served below the root, besides `index.html`.
    public static let servedFolders = ["css", "js", "img"]
    /// Largest file served; the client has no reason to ship anything bigger.
    public static let maximumFileSize = 4 << 20

    /// Files by request path (`/index.html`, `/js/app.js`); `/` is served as `/index.html`.
    public let files: [String: File]

    public init(files: [String: File]) {
        self.files = files
    }

    /// The file a request path names, if any.
    public func file(at path: String) -> File? {
        self.files[path == "/" ? "/index.html" : path]
    }

    /// Reads the client from `root`: `index.html` and every regular file under `css`, `js` and `img`.
    /// - Throws: `invalid_argument` when `root` has no `index.html`, or a file is too large or of an unknown type.
    public static func load(from root: URL) throws -> WebClient {
        let manager = FileManager.default
        let index = root.appendingPathComponent("index.html")
        guard manager.fileExists(atPath: index.path) else {
            throw WotsError(.invalidArgument, "web client folder \(root.path) has no index.html")
        }
        var files = ["/index.html": try Self.read(index, name: "index.html")]
        for folder in Self.servedFolders {
            let base = root.appendingPathComponent(folder)
            guard let walker = manager.enumerator(atPath: base.path) else { continue }
            while let relative = walker.nextObject() as? String {
                let url = base.appendingPathComponent(relative)
                var isDirectory: ObjCBool = false
                guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
                else { continue }
                files["/\(folder)/\(relative)"] = try Self.read(url, name: "\(folder)/\(relative)")
            }
        }
        return WebClient(files: files)
    }

    static func read(_ url: URL, name: String) throws -> File {
        guard let contentType = Self.contentType(ofName: name) else {
            throw WotsError(.invalidArgument, "web client file \(name) has no known content type (.html .css .js …)")
        }
        let body = Array(try Data(contentsOf: url))
        guard body.count <= Self.maximumFileSize else {
            throw WotsError(.invalidArgument, "web client file \(name) is \(body.count) bytes (at most 4 MiB)")
        }
        return File(body: body, contentType: contentType, entityTag: "\"\(Hex.encode(SHA256.hash(body)))\"")
    }

    static func contentType(ofName name: String) -> String? {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        default: nil
        }
    }
}
