import Foundation
import WotsCore

/// A file read or written a chunk at a time by `AttachmentCipher`, its failures named as `invalid_input`.
final class AttachmentFile {
    private let handle: FileHandle
    private let path: String

    init(reading path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw WotsError(.invalidInput, "\(path) cannot be read")
        }
        self.handle = handle
        self.path = path
    }

    /// Creates (or empties) the file, readable by its owner only.
    init(creating path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw WotsError(.invalidInput, "\(path) cannot be created")
        }
        self.handle = handle
        self.path = path
    }

    deinit { try? self.handle.close() }

    func size() throws -> Int64 {
        do {
            let end = try self.handle.seekToEnd()
            try self.handle.seek(toOffset: 0)
            return Int64(end)
        } catch {
            throw WotsError(.invalidInput, "\(self.path) cannot be read: \(error.localizedDescription)")
        }
    }

    /// Up to `count` bytes; fewer only at the end of the file.
    func read(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        do {
            while bytes.count < count {
                guard let data = try self.handle.read(upToCount: count - bytes.count), !data.isEmpty else { break }
                bytes.append(contentsOf: data)
            }
        } catch {
            throw WotsError(.invalidInput, "\(self.path) cannot be read: \(error.localizedDescription)")
        }
        return bytes
    }

    func write(_ bytes: [UInt8]) throws {
        do {
            try self.handle.write(contentsOf: bytes)
        } catch {
            throw WotsError(.invalidInput, "\(self.path) cannot be written: \(error.localizedDescription)")
        }
    }

    /// Flushes the file to disk.
    func finish() throws {
        do {
            try self.handle.synchronize()
        } catch {
            throw WotsError(.invalidInput, "\(self.path) cannot be written: \(error.localizedDescription)")
        }
    }
}
