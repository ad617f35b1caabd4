public import Foundation
public import WotsCore

extension Avatar {
    /// Reads a PNG or JPEG file of at most 64 KiB.
    /// - Throws: `WotsError.invalidInput` naming the file and the rule it broke.
    public static func load(file url: URL) throws -> Avatar {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        if let size = attributes?[.size] as? Int, size > Avatar.maximumImageSize {
            throw WotsError(
                .invalidInput,
                "avatar \(url.path) is \(size) bytes (at most \(Avatar.maximumImageSize))"
            )
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw WotsError(.invalidInput, "cannot read avatar \(url.path): \(error.localizedDescription)")
        }
        do {
            return try Avatar.validatedImage(Array(data))
        } catch let error as WotsError {
            throw WotsError(.invalidInput, "\(url.path): \(error.reason)")
        }
    }
}
