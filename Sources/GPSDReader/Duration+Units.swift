/// Whole units of a `Duration`, for libgps's microsecond waits and the loop's tick.
extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var microseconds: Int64 { nanoseconds / 1000 }
}
