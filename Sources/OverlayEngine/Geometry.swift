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

/// A screen the overlay is drawn on: its portrait size, the height of its status bar, the top of
/// its safe area and what the screen's top edge has cut out of it.
public struct DeviceProfile: Hashable, Sendable {
    public var name: String
    /// Portrait screen width W.
    public var width: Double
    /// Portrait screen height H.
    public var height: Double
    /// Status bar height h.
    public var statusBarHeight: Double
    /// The portrait safe area's top s; nil is h (a screen whose status bar is its only cut).
    public var safeAreaTop: Double?
    public var cutout: Cutout
    /// The Dynamic Island's rectangle, centred horizontally (for an `island` cutout; drawn only).
    public var island: Island?

    public init(
        name: String, width: Double, height: Double, statusBarHeight: Double, safeAreaTop: Double? = nil,
        cutout: Cutout = .none, island: Island? = nil
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.statusBarHeight = statusBarHeight
        self.safeAreaTop = safeAreaTop
        self.cutout = cutout
        self.island = island
    }

    /// What the top edge of the screen cuts out of it.
    public enum Cutout: String, CaseIterable, Hashable, Sendable {
        case none, notch, island
    }

    /// The island's size and its distance from the screen's top edge.
    public struct Island: Hashable, Sendable {
        public var width: Double
        public var height: Double
        public var y: Double

        public init(width: Double, height: Double, y: Double) {
            self.width = width
            self.height = height
            self.y = y
        }
    }

    /// The top safe area s' in `orientation`: s in the portrait ones; in landscape, 0 on a screen
    /// with a cutout (it sits at a side then) and h on one without.
    public func topSafeArea(in orientation: Orientation) -> Double {
        guard orientation.isLandscape else { return safeAreaTop ?? statusBarHeight }
        return cutout == .none ? statusBarHeight : 0
    }

    public static let iphone = DeviceProfile(name: "iphone", width: 320, height: 480, statusBarHeight: 20)
    public static let iphoneSE = DeviceProfile(name: "iphone-se", width: 375, height: 667, statusBarHeight: 20)
    public static let iphoneNotch = DeviceProfile(
        name: "iphone-notch", width: 375, height: 812, statusBarHeight: 44, safeAreaTop: 44, cutout: .notch)
    public static let iphone14 = DeviceProfile(
        name: "iphone-14", width: 390, height: 844, statusBarHeight: 47, safeAreaTop: 47, cutout: .notch)
    public static let iphone15Pro = DeviceProfile(
        name: "iphone-15-pro", width: 393, height: 852, statusBarHeight: 54, safeAreaTop: 59, cutout: .island,
        island: Island(width: 126, height: 37.33, y: 11))
    public static let iphone16Pro = DeviceProfile(
        name: "iphone-16-pro", width: 402, height: 874, statusBarHeight: 54, safeAreaTop: 62, cutout: .island,
        island: Island(width: 126, height: 37.33, y: 14))
    public static let ipad = DeviceProfile(name: "ipad", width: 768, height: 1024, statusBarHeight: 20)
    public static let ipadPro11 = DeviceProfile(name: "ipad-pro-11", width: 834, height: 1194, statusBarHeight: 24)

    /// The built-in profiles, smallest first within each family.
    public static let builtIn: [DeviceProfile] = [
        .iphone, .iphoneSE, .iphoneNotch, .iphone14, .iphone15Pro, .iphone16Pro, .ipad, .ipadPro11,
    ]
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

    /// The status bar's frame in the fixed portrait screen space (what `statusBarFrame` reports).
    public func frame(on device: DeviceProfile) -> Rect {
        frame(on: device, height: device.statusBarHeight)
    }

    /// A window `bar` high along the top edge of the interface in this orientation, in the fixed
    /// portrait screen space: the status bar's frame with h replaced by the window's height Hw.
    public func frame(on device: DeviceProfile, height bar: Double) -> Rect {
        let w = device.width
        let h = device.height
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
