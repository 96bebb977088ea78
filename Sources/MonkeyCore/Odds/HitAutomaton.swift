/// The chance that an entry of random characters contains the target,
/// computed exactly (up to rounding) by running the target's
/// string-matching automaton over the entry's characters.
///
/// State j (0 ≤ j < m) means "the last j characters typed are the target's
/// first j, and no longer prefix is"; typing the target's next character
/// moves to j + 1, and reaching m is a hit, which absorbs. Every other
/// character moves back to the longest prefix that the typed text then ends
/// with (the Knuth–Morris–Pratt failure links), mostly to 0. Only O(m)
/// moves in all lead anywhere but 0 (Simon, 1993), so one character costs
/// O(m), not O(m·k), and an entry of N characters O(N·m).
///
/// The probability of being in state j is at most k^-j (the last j
/// characters are fixed), so it is carried scaled as v_j = P_j·k^j in [0, 1]:
/// a move from s to t by one character multiplies by k^(t−s−1), and the hit
/// probability is k^-m · Σ over characters of v_{m−1}. Every sum is of
/// non-negative terms, so nothing cancels. When almost every entry hits, all
/// v_j shrink towards a Double's underflow; they are then multiplied by a
/// common power of two, which the result divides out again.
struct HitAutomaton {
    /// m, the target's length in characters.
    let length: Int
    /// k, the alphabet's size.
    let alphabetSize: Int
    /// For state j, the weight of its moves to state 0: the number of
    /// characters that lead there times k^-(j+1). Trailing zeros (weights
    /// below a Double's range) are left out.
    private let resetWeights: [Double]
    /// The moves from a state s back to a state t, 1 ≤ t ≤ s, with weight
    /// k^(t−s−1), grouped by t: `backTargets[g]` receives the moves
    /// `backStarts[g]..<backStarts[g + 1]`. Moves whose weight is below a
    /// Double's range are left out: they add nothing.
    private let backTargets: [Int]
    private let backStarts: [Int]
    private let backSources: [Int]
    private let backWeights: [Double]

    /// The automaton of a non-empty target, given as indices into an alphabet of `alphabetSize` characters.
    init(target: [Int], alphabetSize: Int) {
        precondition(!target.isEmpty && alphabetSize >= 1, "a target and an alphabet")
        let m = target.count
        length = m
        self.alphabetSize = alphabetSize
        // border[i]: length of the longest proper border of target[0...i].
        var border = [Int](repeating: 0, count: m)
        var matched = 0
        for index in 1..<max(m, 1) {
            while matched > 0 && target[index] != target[matched] { matched = border[matched - 1] }
            if target[index] == target[matched] { matched += 1 }
            border[index] = matched
        }
        // moves[j]: the characters that lead from state j to a state other than 0, and where.
        // A character other than target[j] does what it does from j's failure state.
        var moves: [[(character: Int, next: Int)]] = [[(target[0], 1)]]
        moves.reserveCapacity(m)
        for state in 1..<max(m, 1) {
            var list = moves[border[state - 1]].filter { $0.character != target[state] }
            list.append((target[state], state + 1))
            moves.append(list)
        }
        let inverse = 1 / Double(alphabetSize)
        var inversePowers = [1.0]  // k^-d
        for _ in 0...m { inversePowers.append((inversePowers.last ?? 1) * inverse) }
        var resetWeights: [Double] = []
        var movesInto = [[(source: Int, weight: Double)]](repeating: [], count: m)
        for state in 0..<m {
            let toZero = alphabetSize - moves[state].count
            resetWeights.append(Double(toZero) * inversePowers[state + 1])
            for move in moves[state] where move.next <= state && inversePowers[state + 1 - move.next] > 0 {
                movesInto[move.next].append((state, inversePowers[state + 1 - move.next]))
            }
        }
        while resetWeights.last == 0 { resetWeights.removeLast() }
        self.resetWeights = resetWeights
        var targets: [Int] = []
        var starts: [Int] = [0]
        var sources: [Int] = []
        var weights: [Double] = []
        for (target, list) in movesInto.enumerated() where !list.isEmpty {
            targets.append(target)
            sources.append(contentsOf: list.map(\.source))
            weights.append(contentsOf: list.map(\.weight))
            starts.append(sources.count)
        }
        backTargets = targets
        backStarts = starts
        backSources = sources
        backWeights = weights
        backMoveCount = moves.reduce(0) { $0 + $1.count } - m
    }

    /// The number of moves from a state back to a state other than 0, left
    /// out or not: at most m (Simon, 1993).
    let backMoveCount: Int

    /// The probability that `characters` random characters contain the
    /// target (`hit`), and that they do not (`miss`), each computed
    /// directly rather than as one minus the other.
    func probabilities(characters: Int) -> (hit: WideNumber, miss: WideNumber) {
        let m = length
        var current = [Double](repeating: 0, count: m)
        var next = current
        current[0] = 1
        // v_j · 2^scale is what the vectors hold.
        var scale = 0
        var absorbed = WideNumber.zero
        var absorbedSinceRescale = 0.0
        for step in 0..<characters {
            absorbedSinceRescale += current[m - 1]
            var reset = 0.0
            for state in 0..<resetWeights.count {
                reset += current[state] * resetWeights[state]
            }
            next[0] = reset
            for state in 1..<max(m, 1) { next[state] = current[state - 1] }
            for group in 0..<backTargets.count {
                var sum = 0.0
                for move in backStarts[group]..<backStarts[group + 1] {
                    sum += current[backSources[move]] * backWeights[move]
                }
                next[backTargets[group]] += sum
            }
            if m <= Self.alwaysCheckedLength || step % Self.alwaysCheckedLength == 0 {
                let largest = next.max() ?? 0
                if largest < Self.rescaleBelow && largest > 0 {
                    absorbed = absorbed + WideNumber(absorbedSinceRescale).scaled(byPowerOfTwo: -scale)
                    absorbedSinceRescale = 0
                    for state in 0..<m { next[state] *= Self.rescaleFactor }
                    scale += Self.rescaleExponent
                }
            }
            swap(&current, &next)
        }
        absorbed = absorbed + WideNumber(absorbedSinceRescale).scaled(byPowerOfTwo: -scale)
        let inversePower = WideNumber(Double(alphabetSize)).power(m).reciprocal
        // Still in state j: P_j = v_j · k^-j.
        var remaining = 0.0
        var weight = 1.0
        for state in 0..<m {
            remaining += current[state] * weight
            weight /= Double(alphabetSize)
        }
        return (absorbed * inversePower, WideNumber(remaining).scaled(byPowerOfTwo: -scale))
    }

    /// Targets up to this long have the largest value checked after every
    /// character; longer ones every this many characters. Only short targets
    /// can be hit so surely that the values come near underflow: that needs
    /// k^m well below the number of characters squared.
    private static let alwaysCheckedLength = 64

    /// Far enough above underflow (2^-1022) that one more character cannot
    /// push the largest value below it, far enough below 1 that rescaling is rare.
    private static let rescaleExponent = 300
    private static let rescaleBelow = 0x1p-300
    private static let rescaleFactor = 0x1p300
}
