internal import OverlayEngine

/// The server's own timing curves, taken from the engine module rather than written again, so
/// that a client interpolates an animation to the same value, to the last bit, as the server.
enum ServerCurves {
    /// Core Animation's ease-in-ease-out at `fraction` (clamped to 0…1) of the animation's time.
    static func easeInOut(_ fraction: Double) -> Double {
        Curve.easeInOut.value(at: fraction)
    }

    /// The ease-out bounce at `fraction` (clamped to 0…1).
    static func easeOutBounce(_ fraction: Double) -> Double {
        Curve.easeOutBounce(fraction)
    }
}
