import Testing

@testable import MonkeyCore

/// `typing_threads`: a count from 1 to 1024, or auto (the default).
struct ConfigurationTypingThreadsTests {
    @Test(arguments: [("1", 1), ("8", 8), ("1024", 1024), ("1_0", 10)])
    func countsParse(value: String, threads: Int) throws {
        #expect(try Configuration.parse("typing_threads = \(value)\n").typingThreads == threads)
    }

    @Test func autoAndTheDefaultAreOneForEachProcessor() throws {
        #expect(try Configuration.parse("typing_threads = auto\n").typingThreads == nil)
        #expect(Configuration().typingThreads == nil)
    }

    @Test(arguments: ["0", "1025", "-1", "many", "", "Auto", "2.5"])
    func badValuesAreRefusedWithTheirLineAndTheRule(value: String) {
        do {
            _ = try Configuration.parse("\ntyping_threads = \(value)\n")
            Issue.record("typing_threads = \(value) was accepted")
        } catch {
            #expect(error.line == 2)
            #expect(
                error.message == "typing_threads: expected a whole number from 1 to 1024 or auto, not '\(value)'",
                "\(error.message)")
        }
    }
}
