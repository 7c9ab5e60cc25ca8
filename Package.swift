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
        // The one room where C lives: libmicrohttpd turned into Request -> Response.
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"], swiftSettings: strict),
        // The pure overlay state machine: no Foundation, no clock, no I/O.
        .target(name: "OverlayEngine", swiftSettings: strict),
        // Routes, JSON, configuration and the driver that owns the clock and the timer.
        .target(name: "OverlayService", dependencies: ["OverlayEngine", "MicroHTTP"], swiftSettings: strict),
        .executableTarget(name: "overlayd", dependencies: ["OverlayService"], swiftSettings: strict),
        .testTarget(name: "OverlayEngineTests", dependencies: ["OverlayEngine"], swiftSettings: strict),
        .testTarget(
            name: "OverlayServiceTests",
            dependencies: ["OverlayService", "OverlayEngine", "MicroHTTP"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
