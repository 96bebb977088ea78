/// A small, fast, seedable generator (wyrand); the daemon seeds it from the
/// system, tests seed it with constants so that a failure replays.
public struct WyRand: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0xa076_1d64_78bd_642f
        let product = state.multipliedFullWidth(by: state ^ 0xe703_7ed1_a0b4_28db)
        return product.high ^ product.low
    }

    /// A uniform value in `0..<bound` without modulo bias (Lemire's method).
    @inline(__always)
    public mutating func next(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "bound must be positive")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }
}
