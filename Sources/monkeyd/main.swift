import MonkeyDaemon

MonkeyDaemon.main(arguments: Array(CommandLine.arguments.dropFirst()))
