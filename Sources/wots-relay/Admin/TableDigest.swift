import WotsCrypto
import WotsStorage

/// A table's row count and a checksum of its rows that does not depend on their order, so two backends that
/// order keys differently (text collations) still agree: the sum, in four 64-bit lanes, of each row's SHA-256.
struct TableDigest: Sendable {
    private(set) var rows = 0
    private var lanes: [UInt64] = [0, 0, 0, 0]

    mutating func add(_ row: PortableRow) {
        self.rows += 1
        let digest = SHA256.hash(Self.encoded(row))
        for lane in 0..<4 {
            let word = digest[(lane * 8)..<(lane * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self.lanes[lane] &+= word
        }
    }

    /// The checksum as 64 hex digits.
    var checksum: String {
        self.lanes.map { lane in
            let digits = String(lane, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// A row as bytes no other row shares: each value's type tag, then its length or value, then its bytes.
    static func encoded(_ row: PortableRow) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ number: UInt64) {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) }
        }
        for value in row {
            switch value {
            case .null:
                bytes.append(0)
            case .integer(let integer):
                bytes.append(1)
                append(UInt64(bitPattern: integer))
            case .text(let text):
                bytes.append(2)
                append(UInt64(text.utf8.count))
                bytes += text.utf8
            case .bytes(let data):
                bytes.append(3)
                append(UInt64(data.count))
                bytes += data
            }
        }
        return bytes
    }
}
