/// Finds where an HTTP/1 request's header block ends in a byte stream (the empty line after the headers), and whether
/// it carries an `Upgrade` header, without parsing anything else: the HTTP decoder after it does that.
struct RequestHeadScanner {
    /// Whether a header line named `Upgrade` was seen.
    private(set) var asksForUpgrade = false
    /// Bytes since the last line feed (0 right after one), counting a carriage return as nothing.
    private var lineLength = 0
    private var upgradeMatch = 0
    private var sawFirstLine = false
    private static let upgradeName = Array("upgrade:".utf8)

    /// Feeds `bytes`; the offset just past the header block's end when it ends in them, else nil.
    mutating func scan(_ bytes: some Collection<UInt8>) -> Int? {
        var offset = 0
        for byte in bytes {
            offset += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if self.lineLength == 0, self.sawFirstLine { return offset }
                if self.lineLength > 0 { self.sawFirstLine = true }
                self.lineLength = 0
                self.upgradeMatch = 0
            case UInt8(ascii: "\r"):
                continue
            default:
                if self.upgradeMatch == self.lineLength, self.upgradeMatch < Self.upgradeName.count,
                    Self.lowercased(byte) == Self.upgradeName[self.upgradeMatch]
                {
                    self.upgradeMatch += 1
                    if self.upgradeMatch == Self.upgradeName.count, self.sawFirstLine { self.asksForUpgrade = true }
                }
                self.lineLength += 1
            }
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
