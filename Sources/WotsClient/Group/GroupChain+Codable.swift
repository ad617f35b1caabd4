import WotsCore
import WotsCrypto

/// The stored form of a chain (inside `groups.json`): `{"owner", "current", "states", "lastSequence"}` with
/// `current` the current state's hash in hex, `states` every state held, and `lastSequence` `{"TOKEN": N}`.
extension GroupChain: Codable {
    private enum CodingKeys: String, CodingKey {
        case owner, current, states, lastSequence
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let states = try container.decode([GroupState].self, forKey: .states)
        let currentHex = try container.decode(String.self, forKey: .current)
        let held = Dictionary(states.map { ($0.stateHash, $0) }, uniquingKeysWith: { first, _ in first })
        guard let hash = Hex.decode(currentHex), let current = held[hash] else {
            throw WotsError(.localStore, "group chain names current state \(currentHex.prefix(64)), which it lacks")
        }
        var sequences: [Token: UInt64] = [:]
        for (token, sequence) in try container.decode([String: UInt64].self, forKey: .lastSequence) {
            sequences[try Token(token)] = sequence
        }
        self.init(
            owner: try container.decode(Token.self, forKey: .owner),
            current: current,
            held: held,
            lastSequence: sequences
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.owner, forKey: .owner)
        try container.encode(Hex.encode(self.currentHash), forKey: .current)
        try container.encode(self.held.values.sorted { $0.version < $1.version }, forKey: .states)
        try container.encode(
            Dictionary(uniqueKeysWithValues: self.lastSequence.map { ($0.key.description, $0.value) }),
            forKey: .lastSequence
        )
    }
}
