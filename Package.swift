// swift-tools-version:6.2
import PackageDescription

// Every Swift target builds in language mode 6 with warnings as errors: a warning that lands
// stays forever, so none may land.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "overlayd",
    products: [
        .executable(name: "overlayd", targets: ["overlayd"])
    ],
    targets: [
        // libmicrohttpd from Debian, through pkg-config; the shim header wraps what Swift cannot call.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // SQLite from Debian, for the durable store.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // What every layer with I/O shares: the monotonic clock and the one address parser.
        .target(name: "Platform", swiftSettings: strict),
        // The one room where C lives: libmicrohttpd turned into Request -> Response.
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD", "Platform"], swiftSettings: strict),
        // The pure overlay state machine: no Foundation, no clock, no I/O.
        .target(name: "OverlayEngine", swiftSettings: strict),
        // The engine's state in SQLite, written by one group-committing thread.
        .target(name: "OverlayStore", dependencies: ["CSQLite", "OverlayEngine"], swiftSettings: strict),
        // Routes, JSON, configuration and the driver that owns the clock and the timer.
        // openapi.yaml is compiled in (no Foundation bundle needed) and served at /openapi.yaml.
        .target(
            name: "OverlayService", dependencies: ["OverlayEngine", "OverlayStore", "MicroHTTP", "Platform"],
            resources: [.embedInCode("openapi.yaml")], swiftSettings: strict),
        .executableTarget(name: "overlayd", dependencies: ["OverlayService", "OverlayStore"], swiftSettings: strict),
        // libFuzzer target for the request decoders (scripts/fuzz builds it with -sanitize=fuzzer
        // and -DFUZZING); a plain build is a replayer of inputs (docs/FUZZING.md).
        .executableTarget(
            name: "RequestDecoderFuzz", dependencies: ["OverlayService", "OverlayEngine", "MicroHTTP", "Platform"],
            path: "Fuzz/RequestDecoderFuzz", swiftSettings: strict),
        .testTarget(name: "OverlayEngineTests", dependencies: ["OverlayEngine"], swiftSettings: strict),
        // The responder's and the stream's state machines, driven without sockets.
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP"], swiftSettings: strict),
        .testTarget(
            name: "OverlayServiceTests",
            dependencies: ["OverlayService", "OverlayEngine", "MicroHTTP", "Platform"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
