/// `GET /v1/log/proof/inclusion?index=&size=`: the RFC 9162 audit path of leaf `leafIndex` in the tree of
/// `treeSize` leaves, hashes in standard base64, the leaf's sibling first.
public struct InclusionProofResponse: Sendable, Hashable, Codable {
    public var leafIndex: UInt64
    public var treeSize: UInt64
    public var hashes: [String]

    public init(leafIndex: UInt64, treeSize: UInt64, hashes: [String]) {
        self.leafIndex = leafIndex
        self.treeSize = treeSize
        self.hashes = hashes
    }
}

/// `GET /v1/log/proof/consistency?from=&to=`: the RFC 9162 consistency proof between two tree sizes.
public struct ConsistencyProofResponse: Sendable, Hashable, Codable {
    public var from: UInt64
    public var to: UInt64
    public var hashes: [String]

    public init(from: UInt64, to: UInt64, hashes: [String]) {
        self.from = from
        self.to = to
        self.hashes = hashes
    }
}

/// `GET /v1/log/entries?start=&end=`: leaves `start..<end` (at most 100), each the standard base64 of its canonical
/// bytes (SECURITY.md, "Log entries").
public struct LogEntriesResponse: Sendable, Hashable, Codable {
    public var start: UInt64
    public var entries: [String]

    public init(start: UInt64, entries: [String]) {
        self.start = start
        self.entries = entries
    }
}

/// What a directory lookup adds so the client can check the entry is in the log: the token's newest leaf, its
/// inclusion proof, and the signed checkpoint (note text) the proof leads to.
public struct LogInclusion: Sendable, Hashable, Codable {
    public var leafIndex: UInt64
    /// Standard base64 of the leaf's canonical bytes.
    public var leaf: String
    /// Hashes of the audit path to `checkpoint`'s tree head, standard base64.
    public var proof: [String]
    /// The signed checkpoint note, as `GET /v1/log/checkpoint` serves it.
    public var checkpoint: String

    public init(leafIndex: UInt64, leaf: String, proof: [String], checkpoint: String) {
        self.leafIndex = leafIndex
        self.leaf = leaf
        self.proof = proof
        self.checkpoint = checkpoint
    }
}

/// A directory lookup's answer: the entry's fields, and beside them `log`, its place in the transparency log (absent
/// from a relay without one).
public struct DirectoryLookup: Sendable, Hashable, Codable {
    public var entry: DirectoryEntry
    public var log: LogInclusion?

    public init(entry: DirectoryEntry, log: LogInclusion?) {
        self.entry = entry
        self.log = log
    }

    private enum CodingKeys: String, CodingKey {
        case log
    }

    public init(from decoder: any Decoder) throws {
        self.entry = try DirectoryEntry(from: decoder)
        self.log = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(LogInclusion.self, forKey: .log)
    }

    public func encode(to encoder: any Encoder) throws {
        try self.entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(self.log, forKey: .log)
    }
}
