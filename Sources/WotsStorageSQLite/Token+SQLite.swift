import Foundation
import WotsCore
import WotsStorage

extension Token {
    /// The 16 raw bytes as stored in BLOB columns.
    var databaseBytes: Data { Data(self.bytes) }

    /// Reads a token column, calling anything that is not 16 bytes corrupted.
    init(databaseBytes data: Data) throws {
        do {
            try self.init(bytes: [UInt8](data))
        } catch {
            throw WotsError(.storageCorrupted, "a stored token is \(data.count) bytes, not 16")
        }
    }
}

extension UUID {
    /// The 16 bytes in the order the envelope header lays them out.
    var databaseBytes: Data { withUnsafeBytes(of: self.uuid) { Data($0) } }
}
