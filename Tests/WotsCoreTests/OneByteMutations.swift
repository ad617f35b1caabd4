/// `count` copies of `original`, each with one random byte replaced, inserted or removed: inputs one slip away from a
/// valid one, for checking that a fast reader and Foundation's decoder agree on whatever the fast reader accepts.
func oneByteMutations(of original: [UInt8], count: Int) -> [[UInt8]] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in
        var bytes = original
        let position = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
        default: bytes.remove(at: position)
        }
        return bytes
    }
}
