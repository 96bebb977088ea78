extension Range where Bound == Int {
    /// The first position of the range at which `isPast` holds, found by
    /// binary search: `isPast` must be false and then true across the
    /// range, as "past this id" is over a log in id order and "past this
    /// name" over names in order. `upperBound` when it never holds.
    func partitionPoint(where isPast: (Int) -> Bool) -> Int {
        var low = lowerBound
        var high = upperBound
        while low < high {
            let middle = low + (high - low) / 2
            if isPast(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
