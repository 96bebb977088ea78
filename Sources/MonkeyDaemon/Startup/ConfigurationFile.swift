import MonkeyCore
import MonkeyShell

/// The configuration file (monkeyd.conf(5)), read at start-up and at
/// each SIGHUP.
enum ConfigurationFile {
    /// Reads the configuration file; a missing default file means defaults.
    static func load(_ options: DaemonOptions) throws(StartupError) -> Configuration {
        let bytes: [UInt8]?
        do {
            bytes = try Syscalls.readWholeFile(options.configurationPath, limit: 16 << 20)
        } catch {
            throw StartupError("cannot read the configuration", error)
        }
        guard let bytes else {
            if options.configurationIsExplicit {
                throw StartupError("the configuration file \(options.configurationPath) does not exist")
            }
            return Configuration()
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StartupError("\(options.configurationPath) is not valid UTF-8")
        }
        do {
            return try Configuration.parse(text)
        } catch {
            throw StartupError("\(options.configurationPath): \(error)")
        }
    }
}
