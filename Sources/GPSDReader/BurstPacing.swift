/// Decides when the reader rests after the start of a burst of gpsd messages, so that the rest of
/// the burst gathers and is read at one go (see `GPSDReader.Configuration.burstWindow`).
///
/// A rest is a wake-up of its own, so it is taken only when it is likely to gather something:
/// when a message comes less than the window after the one before (messages are coming closer
/// together than that), or when the last rest found more in hand. Messages spread out wider than
/// the window (a slow serial line at 1 Hz) are read as they come, one wake-up each, after at most
/// one rest that found nothing.
struct BurstPacing {
    let window: Duration
    /// Whether the reader should rest before it waits again.
    private(set) var restDue = false
    private var lastRestGathered = true
    private var justRested = false

    init(window: Duration) {
        self.window = window
    }

    /// A wait for data ended with data `gap` after the last message was read; the reader reads
    /// the first message at once.
    mutating func woke(after gap: Duration) {
        restDue = window > .zero && (lastRestGathered || gap < window)
    }

    /// The reader rests now.
    mutating func rest() {
        restDue = false
        justRested = true
    }

    /// Whether the reader's look for data (before it reads or waits) found any; after a rest, this
    /// tells whether the rest paid.
    mutating func looked(found: Bool) {
        guard justRested else { return }
        justRested = false
        lastRestGathered = found
    }
}
