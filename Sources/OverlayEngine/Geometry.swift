/// A rectangle in points.
public struct Rect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// A screen the overlay is drawn on: its portrait size and the height of its status bar.
public struct DeviceProfile: Hashable, Sendable {
    public var name: String
    /// Portrait screen width W.
    public var width: Double
    /// Portrait screen height H.
    public var height: Double
    /// Status bar height h.
    public var statusBarHeight: Double

    public init(name: String, width: Double, height: Double, statusBarHeight: Double) {
        self.name = name
        self.width = width
        self.height = height
        self.statusBarHeight = statusBarHeight
    }

    public static let iphone = DeviceProfile(name: "iphone", width: 320, height: 480, statusBarHeight: 20)
    public static let iphoneNotch = DeviceProfile(name: "iphone-notch", width: 375, height: 812, statusBarHeight: 44)
    public static let ipad = DeviceProfile(name: "ipad", width: 768, height: 1024, statusBarHeight: 20)

    /// The profiles of MODEL §1, in the order MODEL §1 lists them.
    public static let builtIn: [DeviceProfile] = [.iphone, .iphoneNotch, .ipad]
}

/// `UIInterfaceOrientation`'s four orientations.
///
/// Status-bar overlay code such as MTStatusBarOverlay compares the interface orientation with `UIDeviceOrientation`
/// constants, whose landscape names are swapped; the rotations and frames here are what those
/// libraries actually put on screen (MODEL §1).
public enum Orientation: String, CaseIterable, Hashable, Sendable {
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight

    /// The overlay window's rotation in degrees.
    public var rotation: Int {
        switch self {
        case .portrait: 0
        case .portraitUpsideDown: 180
        case .landscapeLeft: -90
        case .landscapeRight: 90
        }
    }

    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }

    /// The window's frame in the fixed portrait screen space (what `statusBarFrame` reports).
    public func frame(on device: DeviceProfile) -> Rect {
        let w = device.width
        let h = device.height
        let bar = device.statusBarHeight
        switch self {
        case .portrait: return Rect(x: 0, y: 0, width: w, height: bar)
        case .portraitUpsideDown: return Rect(x: 0, y: h - bar, width: w, height: bar)
        case .landscapeLeft: return Rect(x: 0, y: 0, width: bar, height: h)
        case .landscapeRight: return Rect(x: w - bar, y: 0, width: bar, height: h)
        }
    }

    /// The bar's length L in its own space: W in the portrait orientations, H in the landscape ones.
    public func barLength(on device: DeviceProfile) -> Double {
        isLandscape ? device.height : device.width
    }
}
