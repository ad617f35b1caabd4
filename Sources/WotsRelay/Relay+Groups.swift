extension Relay {
    /// Takes group messages: stored ones over HTTP, ephemeral ones (group typing) on the stream.
    func makeGroupAcceptor() -> GroupMessageAcceptor {
        GroupMessageAcceptor(
            storage: self.storage,
            accounts: self.accounts,
            configuration: self.configuration,
            sendLimiter: self.sendLimiter,
            hub: self.hub,
            clock: self.clock
        )
    }
}
