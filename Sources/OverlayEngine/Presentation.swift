/// How the overlay's window sits on the screen: exactly over the status bar (the seed's window),
/// as a full-width bar reaching past the safe area, or as a capsule under the cutout.
public enum Presentation: String, CaseIterable, Hashable, Sendable {
    case statusBar
    case fullWidth
    case pill
    /// `pill` on a device with a cutout, `statusBar` on one without.
    case auto

    /// The presentation in effect on `device`: never `auto`.
    public func resolved(on device: DeviceProfile) -> Presentation {
        guard self == .auto else { return self }
        return device.cutout == .none ? .statusBar : .pill
    }
}

/// The fixed lengths of the presentations (JDStatusBarNotification 2's).
public enum PresentationMetrics {
    /// A full-width bar's content height below the safe area: shorter under an island.
    public static func fullWidthContentHeight(safeArea: Double) -> Double { safeArea >= 54 ? 38.66 : 44 }
    public static let pillHeight = 50.0
    public static let pillMargin = 20.0
    public static let pillPadding = 20.0
    public static let pillMinimumWidth = 200.0
    public static let accessorySize = 16.0
    /// The accessory's width and the gap after it: 16 + 5.
    public static let accessorySpace = 21.0

    /// How far the pill's top sits from the safe area's: under an island at it, under a notch 7
    /// above it (the notch's own lower edge), on a screen with a plain status bar 3 below it.
    public static func pillOffset(safeArea: Double) -> Double {
        if safeArea >= 54 { return 0 }
        return safeArea > 20 ? -7 : 3
    }
}
