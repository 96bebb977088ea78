import MonkeyCore
import Testing

@testable import MonkeyControl

/// One way of writing counts and large numbers for every human view.
@Suite("Human numbers")
struct HumanNumbersTests {
    @Test(arguments: [
        (UInt64(0), "0"), (7, "7"), (999, "999"), (1_146, "1,146"), (17_576, "17,576"), (1_000_000, "1,000,000"),
        (UInt64.max, "18,446,744,073,709,551,615"),
    ])
    func counts(value: UInt64, text: String) {
        #expect(HumanNumbers.count(value) == text)
        #expect(HumanNumbers.count(text: String(value)) == text)
    }

    @Test(arguments: [("", ""), ("-3", "-3"), ("1.5", "1.5"), ("99999999999999999999", "99999999999999999999")])
    func textsThatAreNotCountsStayAsTheyCame(text: String, shown: String) {
        #expect(HumanNumbers.count(text: text) == shown)
    }

    @Test(arguments: [
        ("1", "1"), ("13.25", "13.25"), ("17576", "17,576"), ("1.435e+07", "14,350,000"),
        ("9.999e+11", "999,900,000,000"), ("8.307e+24", "8.3e24"), ("8.565e+1448", "8.6e1448"),
    ])
    func entries(value: String, text: String) throws {
        #expect(HumanNumbers.entries(try #require(WideNumber(parsing: value))) == text)
    }

    @Test(arguments: [
        ("2.6e+16", 2, "2.6e16"), ("5.69e-05", 2, "5.7e-5"), ("1e+100", 2, "1.0e100"), ("4.2e+1440", 1, "4e1440"),
        ("1.213e-1449", 4, "1.213e-1449"),
    ])
    func scientific(value: String, digits: Int, text: String) throws {
        #expect(HumanNumbers.scientific(try #require(WideNumber(parsing: value)), significantDigits: digits) == text)
    }

    /// The same number in both spellings of the units: `top` only has less room.
    @Test(arguments: [
        (0.05, "50 milliseconds", "50 ms"), (1, "1 second", "1 s"), (11.27, "11 seconds", "11 s"),
        (1757.6, "29 minutes", "29 min"), (9000, "2.5 hours", "2.5 h"), (200_000, "2.3 days", "2.3 d"),
        (3.9e11, "12,358 years", "12,358 y"), (8.3e23, "2.6e16 years", "2.6e16 y"),
    ])
    func durations(seconds: Double, words: String, short: String) {
        #expect(HumanNumbers.duration(WideNumber(seconds), .words) == words)
        #expect(HumanNumbers.duration(WideNumber(seconds), .short) == short)
    }

    @Test(arguments: [
        ("0", "0 %"), ("1", "100 %"), ("0.9999", "99.5 %"), ("0.63", "63 %"), ("0.045", "4.5 %"),
        ("0.0031", "0.31 %"), ("0.0001", "0.01 %"), ("8.363e-07", "<0.01 %"), ("1.168e-1449", "<0.01 %"),
    ])
    func percents(fraction: String, text: String) throws {
        #expect(HumanNumbers.percent(try #require(WideNumber(parsing: fraction))) == text)
    }
}
