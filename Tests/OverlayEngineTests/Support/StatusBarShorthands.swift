@testable import OverlayEngine

// The status bar's and the rise's shorthands, shared by the status-bar, rise, touch, index and
// presentation suites.

/// A status bar with the defaults (application appearance, lightContent, shown, 0.25 s, linear),
/// changed by `configure`.
func makeStatusBar(
    curve: Curve = .linear, _ configure: (inout StatusBarConfiguration) -> Void = { _ in }
) -> StatusBar {
    var configuration = StatusBarConfiguration()
    configure(&configuration)
    return StatusBar(configuration: configuration, curve: curve)
}

extension StatusBar {
    /// Applies a direct setting the test expects to be accepted, and returns what it did.
    @discardableResult
    mutating func set(
        style: StatusBarStyle? = nil, hidden: Bool? = nil, animation: StatusBarAnimation? = nil, at time: Double
    ) throws -> StatusBarEffect {
        try apply(StatusBarInput(style: style, hidden: hidden, animation: animation), at: .seconds(time)).get()
    }

    func alpha(_ time: Double) -> Double { alpha(at: .seconds(time)) }
    func offset(_ time: Double, height: Double = 20) -> Double { offset(at: .seconds(time), height: height) }
    func animation(_ time: Double, height: Double = 20) -> Transition? { animation(at: .seconds(time), height: height) }
}

extension OverlayEngine {
    /// `PUT /statusbar` that the test expects to be accepted; `time` in seconds.
    @discardableResult
    mutating func setBar(
        style: StatusBarStyle? = nil, hidden: Bool? = nil, animation: StatusBarAnimation? = nil, at time: Double
    ) throws -> StatusBarEffect {
        try setStatusBar(StatusBarInput(style: style, hidden: hidden, animation: animation), at: .seconds(time))
            .value.get()
    }

    /// The overlay at `time` seconds.
    func at(_ time: Double) -> OverlaySnapshot { overlay(at: .seconds(time)) }
}

extension Transition {
    /// A rise as `GET /overlay` describes it: the incoming label's offset from Hc to 0.
    static func rise(from distance: Double, start: Double, duration: Double = 0.6) -> Transition {
        Transition(property: .labelOffset, from: distance, to: 0, start: .seconds(start), length: .seconds(duration))
    }
}
