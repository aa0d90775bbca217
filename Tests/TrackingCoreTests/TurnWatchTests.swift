import Testing
import TrackingCore

/// Which way the vehicle turns, from the course over the last five seconds (and two).
@Suite struct TurnWatchTests {
    func turns(_ courses: [Double], every interval: Double = 1, readsSharpBends: Bool = true) -> [TurnWatch.Turn] {
        var watch = TurnWatch(readsSharpBends: readsSharpBends)
        return courses.enumerated().map { watch.turn(at: Track.fix(Double($0.offset) * interval, course: $0.element)) }
    }

    @Test func aSteadyCourseIsStraight() {
        #expect(Set(turns(Array(repeating: 90, count: 12))) == [.straight])
    }

    @Test func aGrowingCourseIsARightTurnAndAShrinkingOneALeftTurn() {
        // Judged over five seconds from the start too: 3°/s shows once 3 s of it have come.
        let right = turns((0..<12).map { 90 + Double($0) * 3 })
        #expect(right.prefix(3).allSatisfy { $0 == .straight } && right.dropFirst(3).allSatisfy { $0 == .right }, "3°/s clockwise: \(right)")
        let left = turns((0..<12).map { 90 - Double($0) * 3 })
        #expect(left.dropFirst(3).allSatisfy { $0 == .left }, "3°/s anticlockwise: \(left)")
    }

    @Test func aTurnThroughNorthIsOneTurn() {
        let courses = (0..<12).map { (350 + Double($0) * 3).truncatingRemainder(dividingBy: 360) }
        #expect(turns(courses).dropFirst(3).allSatisfy { $0 == .right }, "350° → 23°, through north")
    }

    @Test func aHighwaysLongCurveIsABendAndACourseWanderingAboutAStraightIsNot() {
        // 2°/s, as a highway's curve at 28 m/s.
        #expect(turns((0..<12).map { 220 + Double($0) * 2 }).suffix(6).allSatisfy { $0 == .right })
        // A receiver's course at 10 Hz, 2° either side of the road's, fix by fix: 40°/s from one
        // fix to the next, nothing over five seconds.
        let wander = (0..<100).map { 90 + ($0 % 2 == 0 ? 2.0 : -2.0) }
        #expect(Set(turns(wander, every: 0.1)) == [.straight])
    }

    @Test func anSCurvesSecondBendIsReadWhereTheFiveSecondsCancel() {
        // 6°/s to the right for 6 s, then 6°/s to the left: 2 and 3 s past the inflection the
        // five seconds hold as much of each bend (1.2°/s, no bend); the last two say left.
        let courses: [Double] = (0..<14).map { (t: Int) -> Double in t <= 6 ? 90 + 6 * Double(t) : 126 - 6 * Double(t - 6) }
        let read = turns(courses)
        #expect(read[4...7].allSatisfy { $0 == .right }, "\(read)")
        #expect(read[8...].allSatisfy { $0 == .left }, "the second bend from 2 s in: \(read)")
        let fiveSecondsOnly = turns(courses, readsSharpBends: false)
        #expect(fiveSecondsOnly[8...9].allSatisfy { $0 == .straight } && fiveSecondsOnly[10...].allSatisfy { $0 == .left }, "\(fiveSecondsOnly)")
    }

    @Test func aSharpReadingDoesNotOverruleTheFiveSeconds() {
        // A roundabout's exit: 12°/s to the right for 6 s, then 30° to the left in a second and
        // straight on. At the exit the last two seconds say left (9°/s) and the five still say
        // right (3.6°/s): the five stand. A second later they see no bend, and the two are read.
        let courses: [Double] = (0..<12).map { (t: Int) -> Double in t <= 6 ? 90 + 12 * Double(t) : 132 }
        let read = turns(courses)
        #expect(read[7] == .right, "the exit: \(read)")
        #expect(read[8] == .left, "\(read)")
    }

    @Test func theRateOfTheTurnIsReadOverTheFiveSecondsEitherWay() {
        // A town corner's 90° in five seconds, a highway's curve at 2.5°/s, either way round; a
        // fix without a course reads none.
        var corner = TurnWatch()
        let rates = (0..<8).map { t -> Double in
            _ = corner.turn(at: Track.fix(Double(t), course: 90 + 18 * Double(min(t, 5))))
            return corner.degreesPerSecond
        }
        #expect(abs(rates[5] - 18) < 1e-9, "90° over five seconds: \(rates)")
        #expect(abs(rates[7] - 54.0 / 5) < 1e-9, "two seconds on, the five hold 54° of it: \(rates)")
        var curve = TurnWatch()
        for t in 0...10 { _ = curve.turn(at: Track.fix(Double(t), course: 270 - 2.5 * Double(t))) }
        #expect(abs(curve.degreesPerSecond - 2.5) < 1e-9, "a left curve reads as fast as a right one")
        _ = curve.turn(at: Track.fix(11, course: nil))
        #expect(curve.degreesPerSecond == 0)
    }

    @Test func withoutACourseNothingIsSaid() {
        var watch = TurnWatch()
        #expect(watch.turn(at: Track.fix(0, course: nil)) == .straight)
        #expect(watch.turn(at: Track.fix(1, course: 90)) == .straight)
        #expect(watch.turn(at: Track.fix(2, course: 120)) == .right)
        watch.reset()
        #expect(watch.turn(at: Track.fix(3, course: 200)) == .straight, "a reset forgets the course before")
    }

    /// A watch remembers only its last few seconds and drops the rest now and then: after ten
    /// minutes at 10 Hz of bends of every rate either way, with gaps of up to 4.5 s, each fix
    /// reads as it does to a watch that has seen only the ten seconds before it.
    @Test func aLongDriveReadsAsItsLastSecondsDo() {
        var course = 0.0, rate = 0.0, second = 0.0
        let fixes = (0..<6000).map { tenth -> Location in
            if tenth % 37 == 0 { rate = Double(tenth % 11) * 1.3 - 6.5 }
            let step = tenth % 53 == 0 ? Double(tenth % 5) + 0.5 : 0.1
            second += step
            course = (course + rate * step + 360).truncatingRemainder(dividingBy: 360)
            return Track.fix(second, course: tenth % 97 == 5 ? nil : course)
        }
        var long = TurnWatch()
        var turns: Set<TurnWatch.Turn> = []
        for (index, fix) in fixes.enumerated() {
            let read = long.turn(at: fix)
            var fresh = TurnWatch()
            let recent = fixes[..<index].drop { $0.time.seconds(to: fix.time) > 10 }
            for earlier in recent { _ = fresh.turn(at: earlier) }
            #expect(read == fresh.turn(at: fix), "fix \(index) (after \(recent.count) fixes)")
            turns.insert(read)
        }
        #expect(turns == [.right, .left, .straight])
    }
}

/// The cone's room on each side of a point.
@Suite struct DirectionConeSideTests {
    @Test func aNarrowerSideAdmitsLessOnThatSideOnly() {
        // A point 100 m east. A segment to (200, -16) passes 8 m south of it, the point on its
        // left; one to (200, 16) passes 8 m north, the point on its right.
        var even = DirectionCone(tolerance: 10)
        _ = even.admitsThenAdds((100, 0))
        #expect(even.admits((200, -16)) && even.admits((200, 16)))
        var narrowLeft = DirectionCone(tolerance: 10)
        _ = narrowLeft.admitsThenAdds((100, 0), left: 5)
        #expect(!narrowLeft.admits((200, -16)), "8 m with the point on the left, 5 m allowed")
        #expect(narrowLeft.admits((200, 16)), "8 m with the point on the right, 10 m allowed")
        #expect(narrowLeft.admits((200, -8)), "4 m with the point on the left")
        var narrowRight = DirectionCone(tolerance: 10)
        _ = narrowRight.admitsThenAdds((100, 0), right: 5)
        #expect(narrowRight.admits((200, -16)) && !narrowRight.admits((200, 16)))
    }
}
