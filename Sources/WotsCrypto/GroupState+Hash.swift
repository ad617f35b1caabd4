public import WotsCore

extension GroupState {
    /// SHA-256("wots-group-state-v1" || 0x00 || stateBytes): what the next state's `previous` and every group
    /// envelope's membership state hash name.
    public var stateHash: [UInt8] { SHA256.hash(Self.hashLabel + self.stateBytes) }
}
