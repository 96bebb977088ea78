extension WideNumber {
    /// Reads a figure as the protocol writes it (see `formatted`): a whole
    /// number, or a decimal with an optional exponent of any size
    /// (`5.690e-05`, `1.168e-1449`); nil for anything else (`never`).
    /// monkeyctl reads STATUS with it, to say the figures in words.
    public init?(parsing text: String) {
        let parts = text.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
        guard let mantissaText = parts.first, let mantissa = Double(String(mantissaText)), mantissa >= 0,
            mantissa.isFinite
        else { return nil }
        var decimalExponent = 0
        if parts.count == 2 {
            guard let exponent = Int(String(parts[1])) else { return nil }
            decimalExponent = exponent
        }
        guard mantissa > 0 else {
            self = .zero
            return
        }
        // m × 10^e = 2^(log2 m + e log2 10): the whole part of the power is
        // the exponent, two to the rest the significand.
        let power = Elementary.log(mantissa) / Self.logOf2 + Double(decimalExponent) * Self.log2Of10
        let whole = Elementary.floor(power)
        self = WideNumber(Elementary.exp((power - whole) * Self.logOf2)).scaled(byPowerOfTwo: Int(whole))
    }

    private static let logOf2 = 0.693_147_180_559_945_3
    private static let log2Of10 = 3.321_928_094_887_362_3
}
