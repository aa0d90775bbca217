/// Where a stopped vehicle stands: the mean of its fixes since it stopped, and the fix nearest
/// that mean.
///
/// One fix is the receiver's drift at that second, up to 10 m and more off while parked; the
/// mean of a stop's fixes is where the vehicle is. The track keeps real fixes only, so what
/// stands for the place is the fix nearest the mean (measured against the mean as it was when
/// each fix came: constant memory however long the stop).
struct ParkedPlace: Sendable {
    /// The point kept when the vehicle stopped (the stop point, or the first fix).
    let stopPoint: Location
    private let plane: LocalPlane
    private var sum = (x: 0.0, y: 0.0)
    private var count = 0
    /// The fix nearest the mean among those since the last point kept.
    private(set) var nearest: Location?

    /// A place whose first fix, `fix`, is already kept.
    init(kept fix: Location) {
        stopPoint = fix
        plane = LocalPlane(latitude: fix.latitude, longitude: fix.longitude)
        add(fix)
        nearest = nil
    }

    mutating func add(_ fix: Location) {
        let p = plane.project(fix)
        sum = (sum.x + p.x, sum.y + p.y)
        count += 1
        if nearest.map({ offset(of: fix) < offset(of: $0) }) ?? true { nearest = fix }
    }

    /// A point was kept while stopped: what stands for the place must come after it.
    mutating func keptPoint() { nearest = nil }

    /// How far `fix` lies from the mean of the place's fixes, in metres.
    func offset(of fix: Location) -> Double {
        let p = plane.project(fix)
        let n = Double(max(1, count))
        return ((p.x - sum.x / n) * (p.x - sum.x / n) + (p.y - sum.y / n) * (p.y - sum.y / n)).squareRoot()
    }
}
