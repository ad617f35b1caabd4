/// Appends big-endian integers and length-prefixed fields, for the canonical byte layouts in SECURITY.md.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) { self.bytes.reserveCapacity(capacity) }

    package mutating func write(_ raw: some Sequence<UInt8>) { self.bytes.append(contentsOf: raw) }

    package mutating func write<Integer: FixedWidthInteger>(integer: Integer) {
        withUnsafeBytes(of: integer.bigEndian) { self.bytes.append(contentsOf: $0) }
    }

    package mutating func write(uint16Prefixed field: [UInt8]) {
        precondition(field.count <= UInt16.max, "field too long for a 16-bit length")
        self.write(integer: UInt16(field.count))
        self.write(field)
    }

    package mutating func write(uint32Prefixed field: [UInt8]) {
        self.write(integer: UInt32(field.count))
        self.write(field)
    }
}

/// Reads what `ByteWriter` wrote; every read is bounds-checked and reports a short input as nil.
package struct ByteReader {
    private let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var remaining: Int { self.bytes.count - self.offset }

    package mutating func read(count: Int) -> [UInt8]? {
        guard count >= 0, count <= self.remaining else { return nil }
        defer { self.offset += count }
        return Array(self.bytes[self.offset..<self.offset + count])
    }

    package mutating func readInteger<Integer: FixedWidthInteger>(as: Integer.Type = Integer.self) -> Integer? {
        guard let raw = self.read(count: MemoryLayout<Integer>.size) else { return nil }
        return raw.reduce(Integer.zero) { $0 << 8 | Integer($1) }
    }

    package mutating func readUInt16Prefixed() -> [UInt8]? {
        guard let count = self.readInteger(as: UInt16.self) else { return nil }
        return self.read(count: Int(count))
    }

    package mutating func readUInt32Prefixed() -> [UInt8]? {
        guard let count = self.readInteger(as: UInt32.self) else { return nil }
        return self.read(count: Int(count))
    }
}
