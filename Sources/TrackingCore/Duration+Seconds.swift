extension Duration {
    /// The duration in seconds, as a floating-point number (for rates, ages and spans).
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
