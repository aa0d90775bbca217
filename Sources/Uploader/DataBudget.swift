import TrackingCore

/// `data-budget`: the bytes a day the uploader may put on the wire, for a box on a metered SIM.
/// Pure, with the wall clock passed in; the uploader records the transport's running count of
/// bytes after every request and asks before each batch.
///
/// A day is a UTC day, spent evenly: by a moment of the day the allowance is that share of the
/// budget plus a tenth of it up front (so that a morning's backlog is not held to a trickle). A
/// partial batch goes only within the even share: the uploader holds positions back until they
/// fill a batch, which costs a fraction of the bytes per position (headers, signature and TLS
/// records are paid per request). A full batch goes within the allowance; past it, the uploader
/// waits until the day's share catches up, and after the whole budget until the next UTC day.
/// Nothing is dropped: what waits stays in the spool.
public struct DataBudget: Sendable, Equatable {
    /// Bytes a day; 0 is no budget.
    public var bytesPerDay: Int
    /// The bytes spent on the UTC day `day`.
    public private(set) var spentToday = 0
    /// What the last requests cost (up to 8): the next is reckoned at the most of them.
    private var recent: [Int] = []
    private var day: Int64?
    private var lastTotal: Int?

    /// The share of the budget usable up front.
    public static let upFront = 0.1

    public init(bytesPerDay: Int = 0) {
        self.bytesPerDay = max(0, bytesPerDay)
    }

    /// The transport's running total of bytes at `wall` (from its start): the day's spend grows
    /// by what was added since the last record, and a new UTC day starts from nothing.
    public mutating func record(total: Int, at wall: FixTime) {
        rollOver(to: Self.day(of: wall))
        let added = max(0, total - (lastTotal ?? 0))
        spentToday += added
        recent.append(added)
        if recent.count > 8 { recent.removeFirst() }
        lastTotal = total
    }

    /// Takes up a day's spend from before a restart (the last status the daemon wrote): `spent`
    /// bytes as of `wall`. A day other than the next record's is dropped then.
    public mutating func resume(spent: Int, asOf wall: FixTime) {
        day = Self.day(of: wall)
        spentToday = max(0, spent)
    }

    /// What the next request is reckoned to cost: the most of the last few.
    public var nextRequest: Int { recent.max() ?? 0 }

    /// The bytes spent today as of `wall` (nothing once the day has turned since the last record).
    public func spent(at wall: FixTime) -> Int {
        day == Self.day(of: wall) ? spentToday : 0
    }

    /// How long to wait at `wall` before a batch (`full` or partial) may go, with `inFlight`
    /// requests not yet answered (each reckoned at `nextRequest`); nil: now.
    public func wait(full: Bool, at wall: FixTime, inFlight: Int = 0) -> Double? {
        guard bytesPerDay > 0 else { return nil }
        let budget = Double(bytesPerDay)
        let after = Double(spent(at: wall) + max(nextRequest, 1) * (1 + max(0, inFlight)))
        let elapsed = Self.secondsIntoDay(wall)
        let toMidnight = 86_400 - elapsed
        if after > budget { return toMidnight }
        let allowance = full ? Self.upFront * budget : 0
        let share = budget * elapsed / 86_400 + allowance
        guard after > share else { return nil }
        // When the day's share reaches it.
        return min(toMidnight, (after - allowance) / budget * 86_400 - elapsed)
    }

    private mutating func rollOver(to today: Int64) {
        guard day != today else { return }
        day = today
        spentToday = 0
    }

    static func day(of wall: FixTime) -> Int64 {
        Int64((wall.secondsSince1970 / 86_400).rounded(.down))
    }

    static func secondsIntoDay(_ wall: FixTime) -> Double {
        wall.secondsSince1970 - Double(day(of: wall)) * 86_400
    }
}
