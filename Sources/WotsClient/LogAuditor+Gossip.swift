import WotsCore
import WotsTransparency

/// Gossip: every message carries the sender's newest verified log head, and the recipient checks it against its own
/// view of the same relay's log, so a relay that shows two people different logs is caught when they next talk.
extension LogAuditor {
    /// The head this client puts in the messages it sends; nil before it verified any checkpoint of this relay.
    func gossipHead() async throws -> LogHead? {
        guard let checkpoint = try await self.pinned().checkpoint else { return nil }
        return try LogHead(size: checkpoint.size, root: checkpoint.rootHash.bytes)
    }

    /// Checks that `head`, which `peer` was shown, and this client's view are one log: equal roots at equal sizes, a
    /// consistency proof from the smaller to the larger otherwise. Fetches the relay's newest checkpoint only when
    /// the peer saw a larger log than this client did.
    /// - Throws: `log_forked` when they cannot be one log; the relay's errors when it cannot be asked.
    func checkGossip(_ head: LogHead, from peer: String) async throws {
        var own = try await self.pinned().checkpoint
        if own.map({ head.size > $0.size }) ?? true {
            own = try await self.advance(toNote: self.relay.checkpointNote())
        }
        guard let own, head.size > 0 else { return }
        let peerRoot = try MerkleHash(bytes: head.root)
        let forked = WotsError(
            .logForked,
            "\(peer) was shown a log of \(head.size) leaves that is not the one \(self.relay.baseURL) shows you "
                + "(\(own.size) leaves): the relay shows different logs to different people; refusing this relay"
        )
        guard head.size != own.size else {
            guard peerRoot == own.rootHash else { throw forked }
            return
        }
        let (old, new) =
            head.size < own.size
            ? ((head.size, peerRoot), (own.size, own.rootHash)) : ((own.size, own.rootHash), (head.size, peerRoot))
        guard old.0 > 0 else { return }
        let answer: ConsistencyProofResponse
        do {
            answer = try await self.relay.consistencyProof(from: old.0, to: new.0)
        } catch let error as WotsError where Messenger.isTransient(error) {
            throw error
        } catch {
            throw forked
        }
        do {
            let hashes = try answer.hashes.map(MerkleHash.init(base64:))
            try ConsistencyProof(oldSize: old.0, newSize: new.0, hashes: hashes).verify(oldRoot: old.1, newRoot: new.1)
        } catch {
            throw forked
        }
    }
}
