// swift-tools-version:6.2
import PackageDescription

// Every Swift target builds in language mode 6 with warnings as errors: a warning that lands
// stays forever, so none may land.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "overlayd",
    // Only the client library builds on Apple platforms; these are the oldest with the async
    // URLSession and Swift concurrency it uses.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "overlayd", targets: ["overlayd"]),
        // What an app links to read and drive an overlayd: Foundation (URLSession) and the pure
        // engine's timing curves, no server module.
        .library(name: "OverlayClient", targets: ["OverlayClient"]),
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
        // libcurl's header from Debian (libcurl4-openssl-dev), for the publisher's outgoing POSTs and
        // the requests of `overlayd post` and `watch`. No pkgConfig: that would link libcurl into
        // every overlayd; the shim loads it with dlopen when publishing is on or a client command
        // runs, and wraps its variadic setters.
        .systemLibrary(name: "CCurl"),
        // HarfBuzz from Debian, through pkg-config, for shaping text to measure it; only
        // TextMeasure imports it.
        .systemLibrary(
            name: "CHarfBuzz",
            pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]
        ),
        // OpenSSL's libcrypto from Debian (libssl-dev): SHA-256, HMAC, the random source and a
        // constant-time compare, for tokens and webhook signatures; SignedToken checks PEM keys with
        // it. Only those two import it.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libjwt from Debian (libjwt-dev), for verifying signed tokens; only SignedToken imports it.
        .systemLibrary(name: "CJWT", pkgConfig: "libjwt", providers: [.apt(["libjwt-dev"])]),
        // What every layer with I/O shares: the monotonic clock, the one address parser, threads.
        .target(name: "Platform", swiftSettings: strict),
        // The one room where C lives: libmicrohttpd turned into Request -> Response.
        // Its `epoll_wait` must be in the executable's dynamic symbols for libmicrohttpd's calls to
        // bind to it (EpollContinuation.swift): a definition alone satisfies no versioned reference.
        .target(
            name: "MicroHTTP", dependencies: ["CMicroHTTPD", "Platform"], swiftSettings: strict,
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=epoll_wait"])]),
        // Hashes, MACs and random secrets from libcrypto, behind a Swift API that shows no C type.
        .target(name: "Crypto", dependencies: ["CCrypto"], swiftSettings: strict),
        // A JWT's signature verified by libjwt, its header's algorithm checked first; no clock.
        .target(name: "SignedToken", dependencies: ["CJWT", "CCrypto"], swiftSettings: strict),
        // The pure overlay state machine: no Foundation, no clock, no I/O.
        .target(name: "OverlayEngine", swiftSettings: strict),
        // The engine's state in SQLite, written by one group-committing thread.
        .target(name: "OverlayStore", dependencies: ["CSQLite", "OverlayEngine", "Platform"], swiftSettings: strict),
        // Every new overlay version POSTed to a pub/sub endpoint (nchan), off the write path.
        .target(name: "OverlayPublisher", dependencies: ["CCurl", "Platform"], swiftSettings: strict),
        // Routes, JSON, configuration and the driver that owns the clock and the timer.
        // openapi.yaml, the preview page and the web component's module are compiled in (no
        // Foundation bundle needed) and served at /openapi.yaml, /preview and /overlayd.js.
        .target(
            name: "OverlayService",
            dependencies: [
                "OverlayEngine", "OverlayStore", "MicroHTTP", "OverlayPublisher", "Platform", "TextMeasure", "Crypto",
                "SignedToken",
            ],
            resources: [
                .embedInCode("openapi.yaml"), .embedInCode("PreviewPage.html"),
                .embedInCode("Module/overlayd-1-base.js"),
                .embedInCode("Module/overlayd-2-views.js"), .embedInCode("Module/overlayd-3-element.js"),
            ],
            swiftSettings: strict),
        // Text widths from HarfBuzz in one font file (Inter by default), behind a Swift API that
        // shows no C type: HarfBuzz is imported privately.
        .target(name: "TextMeasure", dependencies: ["CHarfBuzz"], swiftSettings: strict),
        // The Swift client of the HTTP API: types, interpolation, calls and the update stream, on a
        // transport protocol. FoundationEssentials only, so that the overlayd executable, which
        // links it for its commands, loads neither Foundation nor FoundationNetworking (nor the
        // libcurl those link) when it serves.
        .target(name: "OverlayClientCore", dependencies: ["OverlayEngine"], swiftSettings: strict),
        // The library product: the core, re-exported, with its transport on URLSession.
        .target(name: "OverlayClient", dependencies: ["OverlayClientCore"], swiftSettings: strict),
        // `overlayd post` and `overlayd watch`, on the core with a transport on libcurl, loaded
        // when one of them runs.
        .target(
            name: "OverlayCommands", dependencies: ["OverlayClientCore", "CCurl", "Platform"], swiftSettings: strict),
        .executableTarget(
            name: "overlayd", dependencies: ["OverlayService", "OverlayStore", "OverlayCommands"], swiftSettings: strict
        ),
        // libFuzzer target for the request decoders (scripts/fuzz builds it with -sanitize=fuzzer
        // and -DFUZZING); a plain build is a replayer of inputs (docs/FUZZING.md).
        .executableTarget(
            name: "RequestDecoderFuzz", dependencies: ["OverlayService", "OverlayEngine", "MicroHTTP", "Platform"],
            path: "Fuzz/RequestDecoderFuzz", swiftSettings: strict),
        // What the test targets share: the one raw HTTP client, event-stream client, child-process
        // runner and `eventually`, loopback sockets, the built executable, files, a seeded generator.
        .target(name: "TestSupport", dependencies: ["Platform"], path: "Tests/TestSupport", swiftSettings: strict),
        // The in-process server the service's and the publisher's tests share, on public API only.
        .target(
            name: "ServiceTestSupport", dependencies: ["OverlayService", "TestSupport"],
            path: "Tests/ServiceTestSupport", swiftSettings: strict),
        // Digests and MACs against the NIST and RFC 4231 vectors, randomness, constant-time equality.
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"], swiftSettings: strict),
        // Tokens and keys that Python's pyjwt and cryptography made (scripts/jwt-fixtures): good,
        // tampered, confused and refused ones, and verification from many threads at once.
        .testTarget(
            name: "SignedTokenTests", dependencies: ["SignedToken", "Platform", "TestSupport"], exclude: ["Fixtures"],
            swiftSettings: strict),
        // The one lock, under contention (and under ThreadSanitizer in .ci/run).
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "OverlayEngineTests", dependencies: ["OverlayEngine", "TestSupport"], swiftSettings: strict),
        // The responder's and the stream's state machines, driven without sockets.
        .testTarget(
            name: "MicroHTTPTests", dependencies: ["MicroHTTP", "Platform", "TestSupport"], swiftSettings: strict),
        // The client and its commands against the built `overlayd` binary as a child process (and
        // `watch` under tmux), never through the server's modules; the client through both
        // transports.
        .testTarget(
            name: "OverlayClientTests",
            dependencies: ["OverlayClient", "OverlayClientCore", "OverlayCommands", "Platform", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "OverlayServiceTests",
            dependencies: [
                "OverlayService", "OverlayEngine", "MicroHTTP", "Platform", "TestSupport", "ServiceTestSupport",
                "Crypto",
            ],
            exclude: ["Fixtures"], swiftSettings: strict
        ),
        .testTarget(
            name: "OverlayPublisherTests",
            dependencies: [
                "OverlayPublisher", "OverlayService", "OverlayEngine", "Platform", "TestSupport", "ServiceTestSupport",
            ],
            swiftSettings: strict
        ),
        // Widths against a fixture that Python's uharfbuzz computed on the same font file
        // (scripts/text-fixtures), bad font files, and widths from many threads at once.
        .testTarget(
            name: "TextMeasureTests", dependencies: ["TextMeasure", "Platform", "TestSupport"], exclude: ["Fixtures"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
