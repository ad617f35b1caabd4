import WotsTransparency

/// RFC 9162 section 2.1 written as literally as possible over a full list of leaf hashes: MTH, PATH and PROOF by
/// their recursive definitions. Slow, obviously right, and independent of the storage-friendly builder it checks.
struct NaiveMerkleTree {
    let leafHashes: [MerkleHash]

    /// MTH(D[range]).
    func head(_ range: Range<Int>) -> MerkleHash {
        switch range.count {
        case 0: return MerkleTree.emptyRootHash
        case 1: return self.leafHashes[range.lowerBound]
        default:
            let k = Self.split(range.count)
            return MerkleTree.nodeHash(
                self.head(range.lowerBound..<range.lowerBound + k),
                self.head(range.lowerBound + k..<range.upperBound)
            )
        }
    }

    /// PATH(m, D[range]) with m relative to the range.
    func path(_ m: Int, _ range: Range<Int>) -> [MerkleHash] {
        guard range.count > 1 else { return [] }
        let k = Self.split(range.count)
        let left = range.lowerBound..<range.lowerBound + k
        let right = range.lowerBound + k..<range.upperBound
        if m < k { return self.path(m, left) + [self.head(right)] }
        return self.path(m - k, right) + [self.head(left)]
    }

    /// PROOF(m, D[0:n]).
    func proof(_ m: Int, _ n: Int) -> [MerkleHash] { self.subproof(m, 0..<n, true) }

    /// SUBPROOF(m, D[range], b) with m relative to the range.
    func subproof(_ m: Int, _ range: Range<Int>, _ b: Bool) -> [MerkleHash] {
        if m == range.count { return b ? [] : [self.head(range)] }
        let k = Self.split(range.count)
        let left = range.lowerBound..<range.lowerBound + k
        let right = range.lowerBound + k..<range.upperBound
        if m <= k { return self.subproof(m, left, b) + [self.head(right)] }
        return self.subproof(m - k, right, false) + [self.head(left)]
    }

    /// The largest power of two smaller than n, for n > 1.
    static func split(_ n: Int) -> Int {
        var k = 1
        while k * 2 < n { k *= 2 }
        return k
    }
}
