// The typing kernel alone, on one thread: characters typed per second of
// that thread's CPU for a few session shapes. bench/typing.sh runs it
// beside the plain C loop (bench/typing-reference.c). Not part of `make test`.
//
//   bench-typing [--seconds S | --batches N] [SHAPE...]
//
// --batches types a fixed amount (N batches of each shape), for counting
// instructions with callgrind (bench/typing.sh --instructions).
import MonkeyCore
import MonkeyShell

struct Shape {
    let name: String
    let letters: String
    let monkeys: Int
    let target: String
    let seed: TypingSeed?
    /// Entries per batch; every batch keeps `keep` of them.
    let batch: Int
    let keep: Int
}

let shapes = [
    Shape(
        name: "unseeded", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 10_000, target: "to be or not to be",
        seed: nil, batch: 100, keep: 100),
    Shape(
        name: "seeded", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 10_000, target: "to be or not to be",
        seed: TypingSeed(42), batch: 100, keep: 100),
    Shape(
        name: "unseeded-searched", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 10_000, target: "tobeornottobe",
        seed: nil, batch: 100, keep: 100),
    Shape(
        name: "seeded-searched", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 10_000, target: "tobeornottobe",
        seed: TypingSeed(42), batch: 100, keep: 100),
    Shape(
        name: "unseeded-1m", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 1_000_000, target: "tobeornottobe",
        seed: nil, batch: 1, keep: 100),
    Shape(
        name: "unseeded-dropped", letters: "abcdefghijklmnopqrstuvwxyz", monkeys: 10_000, target: "tobeornottobe",
        seed: nil, batch: 1000, keep: 100),
    Shape(
        name: "binary", letters: "01", monkeys: 10_000, target: "0110101101110", seed: nil, batch: 100, keep: 100),
    Shape(
        name: "greek", letters: "αβγδεζηθικλμνξοπρστυφχψω", monkeys: 10_000, target: "τοβεορνοττοβε",
        seed: nil, batch: 100, keep: 100),
]

/// Types batches of the shape for `seconds` of CPU, or `batches` of them.
func run(_ shape: Shape, seconds: Double, batches: Int?) throws -> (rate: Double, characters: UInt64, best: Int) {
    let alphabet = TypingAlphabet(try Alphabet(validating: shape.letters, limit: 65_536))
    let target = TypingTarget(TargetMatcher(target: shape.target), alphabet: alphabet)
    var typist = Typist()
    var random = WyRand(seed: 0x5eed)
    var best = 0
    var nextID: UInt64 = 1
    var characters: UInt64 = 0
    let start = Syscalls.threadCPUNanoseconds()
    var elapsed: UInt64 = 0
    var typed = 0
    while batches.map({ typed < $0 }) ?? (elapsed < UInt64(seconds * 1e9)) {
        let job = TypingJob(
            monkeys: shape.monkeys, alphabet: alphabet, target: target, seed: shape.seed, firstID: nextID,
            count: shape.batch, keep: shape.keep, bestLength: best, random: random, hitTextLimit: 16)
        let batch = typist.type(job)
        best = batch.bestLength
        random = batch.random
        nextID += UInt64(shape.batch)
        characters += batch.charactersTyped
        elapsed = Syscalls.threadCPUNanoseconds() - start
        typed += 1
    }
    return (elapsed == 0 ? 0 : Double(characters) / (Double(elapsed) / 1e9), characters, best)
}

var seconds = 1.0
var batches: Int?
var chosen: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--seconds", let value = arguments.popFirst().flatMap(Double.init) {
        seconds = value
    } else if argument == "--batches", let value = arguments.popFirst().flatMap(Int.init) {
        batches = value
    } else {
        chosen.append(argument)
    }
}
for shape in shapes where chosen.isEmpty || chosen.contains(shape.name) {
    let (rate, characters, best) = try run(shape, seconds: seconds, batches: batches)
    print("\(shape.name) \(Int(rate / 1e6)) M characters per CPU-second (\(characters) characters, best \(best))")
}
