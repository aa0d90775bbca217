/// What a numeric setting accepts, one rule for the daemon's keys and the filter's: a range, and
/// whether only whole numbers; its text for `--help` and the manual, and the words of a refusal.
struct NumberRule: Sendable {
    let range: ClosedRange<Double>
    let integer: Bool

    /// "N 1-10" (whole numbers) or "X 0.5-10000".
    var value: String {
        (integer ? "N " : "X ") + "\(DaemonSettings.format(range.lowerBound))-\(DaemonSettings.format(range.upperBound))"
    }

    /// What is wrong with a value it refused.
    var problem: String {
        "must be a \(integer ? "whole number" : "number") from \(DaemonSettings.format(range.lowerBound)) to \(DaemonSettings.format(range.upperBound))"
    }

    /// The number `text` holds, or nil when it is not one the rule accepts.
    func parse(_ text: String) -> Double? {
        guard let number = Double(text), number.isFinite, range.contains(number), !integer || number == number.rounded() else { return nil }
        return number
    }
}
