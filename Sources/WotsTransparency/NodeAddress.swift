/// Where a complete (perfect) subtree's hash is stored: `level` and `index` name the subtree over leaves
/// `index·2^level ..< (index+1)·2^level`.
///
/// Level 0 holds the leaf hashes. A node exists once all its leaves are in the log, and never changes after that.
public struct NodeAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Height above the leaves: 0 for a leaf hash, up to 63.
    public let level: Int
    /// Position among the nodes of the same level, counted from the left from 0.
    public let index: UInt64

    /// The node at `level` (0–63) and `index`, whose leaves must all lie below leaf 2^64 − 1 (a tree holds at most
    /// 2^64 − 1 leaves).
    public init(level: Int, index: UInt64) {
        precondition((0...63).contains(level), "node level \(level) is outside 0…63")
        precondition(index < UInt64.max >> level, "node (\(level), \(index)) lies past the largest possible tree")
        self.level = level
        self.index = index
    }

    /// The leaves this node covers.
    public var leaves: Range<UInt64> {
        let start = self.index << self.level
        return start..<(start + (1 << self.level))
    }

    /// Level first, then index.
    public static func < (lhs: NodeAddress, rhs: NodeAddress) -> Bool {
        (lhs.level, lhs.index) < (rhs.level, rhs.index)
    }

    public var description: String { "(\(self.level), \(self.index))" }
}

/// A complete subtree's address with its hash, as the log stores it.
public struct MerkleNode: Sendable, Hashable {
    public let address: NodeAddress
    public let hash: MerkleHash

    public init(address: NodeAddress, hash: MerkleHash) {
        self.address = address
        self.hash = hash
    }
}

extension NodeAddress {
    /// The complete subtrees that together hold exactly the leaves `range`, largest (leftmost) first.
    ///
    /// Only for ranges the RFC 9162 split produces, which start at a multiple of a power of two at least as large
    /// as they are; those split by the binary digits of their length.
    static func covering(_ range: Range<UInt64>) -> [NodeAddress] {
        var addresses: [NodeAddress] = []
        var start = range.lowerBound
        var remaining = range.upperBound - range.lowerBound
        while remaining > 0 {
            let level = 63 - remaining.leadingZeroBitCount
            precondition(start & ((1 << level) - 1) == 0, "leaves \(range) are not aligned for an RFC 9162 split")
            addresses.append(NodeAddress(level: level, index: start >> level))
            start += 1 << level
            remaining -= 1 << level
        }
        return addresses
    }
}
