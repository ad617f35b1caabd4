import Foundation

/// Where `serve` finds the browser client's files when `--web-root` does not say.
///
/// Installed, the files sit at `PREFIX/share/wots/web` beside `PREFIX/bin/wots-relay` (`make install`:
/// `../share/wots/web` from the executable's folder), or at `/usr/share/wots/web` beside `/usr/lib/wots/wots-relay`
/// (the .deb: `../../share/wots/web`). In a source checkout (`make run`, the tests) the executable sits a few folders below the
/// checkout (`.build/x86_64-unknown-linux-gnu/debug/`), whose `web/` holds the client; the checkout is recognised by
/// its `Package.swift` beside `web/index.html`, never by the current directory.
enum WebClientLocation {
    static func defaultRoot(executable: URL = Self.executable) -> URL? {
        let folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for relative in ["../share/wots/web", "../../share/wots/web"] {
            let installed = folder.appendingPathComponent(relative).standardizedFileURL
            if Self.hasIndex(installed) { return installed }
        }
        var candidate = folder
        for _ in 0..<4 {
            candidate = candidate.deletingLastPathComponent()
            let web = candidate.appendingPathComponent("web")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path),
                Self.hasIndex(web)
            {
                return web
            }
        }
        return nil
    }

    /// The running executable: `/proc/self/exe` (a name found on PATH says nothing about its folder).
    static var executable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    }

    static func hasIndex(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.html").path)
    }
}
