import Foundation

/// A fresh folder under the system temporary folder, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        self.url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wots-client-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: self.url.path)
    }

    /// The account folder inside, not created yet.
    var home: URL { self.url.appendingPathComponent("home", isDirectory: true) }

    func remove() { try? FileManager.default.removeItem(at: self.url) }
}

func mode(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
