import Glibc
import MonkeyControl

let status = MonkeyControl.run(arguments: CommandLine.arguments, environment: MonkeyControl.processEnvironment())
exit(status)
