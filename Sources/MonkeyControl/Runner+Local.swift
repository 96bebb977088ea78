import MonkeyCore

extension Runner {
    /// Carries out the subcommands that need no daemon; false for the others.
    func runLocally(_ command: Command) -> Bool {
        switch command {
        case .help(let topic):
            console.print(Help.text(for: topic))
        case .clientVersion:
            console.print("monkeyctl \(Engine.version)")
        case .odds(let question):
            // The parser refuses an empty target, the one without odds.
            guard let odds = Odds(target: question.target, monkeys: question.monkeys, alphabet: question.alphabet)
            else { return true }
            console.print(invocation.isJSON ? OddsReport.json(question, odds) : OddsReport.human(question, odds))
        case .replay(let question):
            let text = question.seed.text(ofEntry: question.id, monkeys: question.monkeys, alphabet: question.alphabet)
            if invocation.isJSON {
                let members = [
                    ("seed", question.seed.description), ("id", String(question.id)),
                    ("monkeys", String(question.monkeys)), ("alphabet", JSONLines.string(question.alphabet.text)),
                    ("text", JSONLines.string(text)),
                ]
                console.print("{" + members.map { JSONLines.string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}")
            } else {
                console.print(Visible.escaped(text))
            }
        default:
            return false
        }
        return true
    }
}
