import MonkeyControl

MonkeyControl.main(arguments: CommandLine.arguments)
