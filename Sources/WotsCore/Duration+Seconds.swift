extension Duration {
    /// This duration in seconds (what `TimeInterval`, `Date` and Dispatch take).
    public var seconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
