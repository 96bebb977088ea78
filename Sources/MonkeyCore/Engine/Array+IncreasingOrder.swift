extension Array where Element: Comparable {
    /// Whether no element is less than the one before it (a linear check,
    /// cheaper than sorting what is already sorted).
    var isInIncreasingOrder: Bool {
        indices.dropFirst().allSatisfy { self[$0 - 1] <= self[$0] }
    }
}
