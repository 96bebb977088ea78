// swift-tools-version: 6.0
import PackageDescription

/// Release builds of the daemon's hot paths skip the run-time exclusivity
/// checks (the compiler still checks statically; debug builds and tests keep
/// the run-time checks): perf showed them at about 6 % of the daemon's time
/// per request. See BENCHMARKS.md.
let uncheckedExclusivity: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
    name: "monkeyd",
    products: [
        .executable(name: "monkeyd", targets: ["monkeyd"]),
        .executable(name: "monkeyctl", targets: ["monkeyctl"]),
    ],
    targets: [
        // The pure core: typing model, log, protocol and dispatch. No I/O, no Glibc.
        .target(name: "MonkeyCore", dependencies: ["CChecksum", "CPrefetch"], swiftSettings: uncheckedExclusivity),
        // The processor's CRC-32C instruction, which Swift cannot reach; pure computation.
        .target(name: "CChecksum"),
        // The processor's prefetch hint, which Swift cannot reach: it changes only what is in the caches.
        .target(name: "CPrefetch"),
        // C declarations Glibc's Swift module lacks (epoll, SO_PEERCRED, stdio buffering).
        .target(name: "CShim"),
        // libsystemd, reached only through MonkeySystemd.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Every syscall the daemon and the client make, with Swift names.
        .target(name: "MonkeyShell", dependencies: ["CShim"]),
        // sd_notify, sd_listen_fds and the journal, in Swift words.
        .target(name: "MonkeySystemd", dependencies: ["CSystemd", "MonkeyShell"]),
        .target(
            name: "MonkeyDaemon", dependencies: ["MonkeyCore", "MonkeyShell", "MonkeySystemd", "CPrefetch"],
            swiftSettings: uncheckedExclusivity),
        .target(name: "MonkeyControl", dependencies: ["MonkeyCore", "MonkeyShell"]),
        .executableTarget(name: "monkeyd", dependencies: ["MonkeyDaemon"]),
        .executableTarget(name: "monkeyctl", dependencies: ["MonkeyControl"]),
        // The typing kernel alone, for bench/typing.sh; never run by the tests.
        .executableTarget(
            name: "bench-typing", dependencies: ["MonkeyCore", "MonkeyShell"], swiftSettings: uncheckedExclusivity),
        // The owner's cost of a timed tick alone (BENCHMARKS.md), outside `make test`; not installed.
        .executableTarget(name: "tick-bench", dependencies: ["MonkeyCore", "MonkeyShell"], path: "bench/TickBench"),
        // The chunk index's figures (BENCHMARKS.md), outside `make test`; not installed.
        .executableTarget(
            name: "corpus-bench", dependencies: ["MonkeyCore", "MonkeyShell"], path: "bench/CorpusBench",
            swiftSettings: uncheckedExclusivity),
        .testTarget(name: "MonkeyCoreTests", dependencies: ["MonkeyCore"]),
        // The pure parts of monkeyctl (top's layout, renderer and keys), without a terminal.
        .testTarget(name: "MonkeyControlTests", dependencies: ["MonkeyControl", "MonkeyCore"]),
        // The daemon's shell in-process: its parts (phases, subscriptions,
        // group commit, the end of a pass, the store's files) without spawning it.
        .testTarget(name: "MonkeyDaemonTests", dependencies: ["MonkeyCore", "MonkeyShell", "MonkeyDaemon"]),
        // The binaries, spawned: daemon and client end to end.
        .testTarget(
            name: "MonkeyIntegrationTests",
            dependencies: ["MonkeyCore", "MonkeyShell", "monkeyd", "monkeyctl"],
            // Read from the source tree by path (UpgradeTests), not bundled.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
