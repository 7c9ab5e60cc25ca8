import Testing

@testable import OverlayEngine

/// One row of MODEL §1: a device profile in one orientation, with what the overlay must report there.
struct GeometryCase: Sendable, CustomTestStringConvertible {
    var device: DeviceProfile
    var orientation: Orientation
    var rotation: Int
    var frame: Rect
    /// The bar's length L in its own space.
    var length: Double
    var testDescription: String { "\(device.name) \(orientation.rawValue)" }
}

/// One table row: device, orientation, rotation, frame (x, y, width, height), bar length L.
func row(
    _ device: DeviceProfile, _ orientation: Orientation, _ rotation: Int,
    _ frame: (Double, Double, Double, Double), _ length: Double
) -> GeometryCase {
    GeometryCase(
        device: device, orientation: orientation, rotation: rotation,
        frame: Rect(x: frame.0, y: frame.1, width: frame.2, height: frame.3), length: length)
}

/// MODEL §1's table, written out for each device: W × H with status bar h. It is the `statusBar`
/// presentation's (on a device with a cutout `auto` is the pill: PresentationEngineTests).
let geometryCases: [GeometryCase] = [
    // iphone: 320 × 480, h = 20
    row(.iphone, .portrait, 0, (0, 0, 320, 20), 320),
    row(.iphone, .portraitUpsideDown, 180, (0, 460, 320, 20), 320),
    row(.iphone, .landscapeLeft, -90, (0, 0, 20, 480), 480),
    row(.iphone, .landscapeRight, 90, (300, 0, 20, 480), 480),
    // iphone-notch: 375 × 812, h = 44
    row(.iphoneNotch, .portrait, 0, (0, 0, 375, 44), 375),
    row(.iphoneNotch, .portraitUpsideDown, 180, (0, 768, 375, 44), 375),
    row(.iphoneNotch, .landscapeLeft, -90, (0, 0, 44, 812), 812),
    row(.iphoneNotch, .landscapeRight, 90, (331, 0, 44, 812), 812),
    // ipad: 768 × 1024, h = 20
    row(.ipad, .portrait, 0, (0, 0, 768, 20), 768),
    row(.ipad, .portraitUpsideDown, 180, (0, 1004, 768, 20), 768),
    row(.ipad, .landscapeLeft, -90, (0, 0, 20, 1024), 1024),
    row(.ipad, .landscapeRight, 90, (748, 0, 20, 1024), 1024),
]

@Suite("Geometry (MODEL §1)")
struct GeometryTests {
    /// A fully shown overlay reports the table's rotation and frame, a label inset 30 from both ends
    /// of the bar, and a full progress bar as long as the bar.
    @Test(arguments: geometryCases)
    func shownOverlay(_ row: GeometryCase) throws {
        var engine = makeEngine {
            $0.device = row.device
            $0.orientation = row.orientation
            $0.presentation = .statusBar
        }
        try engine.posted(.message("Downloading", kind: .progress, progress: 1), at: .seconds(0))
        let overlay = engine.overlay(at: .seconds(0.25))
        let h = row.device.statusBarHeight
        #expect(overlay.phase == .visible)
        #expect(overlay.orientation == row.orientation)
        #expect(overlay.rotation == row.rotation)
        #expect(overlay.frame == row.frame)
        #expect(overlay.label?.frame == Rect(x: 30, y: 0, width: row.length - 60, height: h))
        #expect(overlay.progressBar?.frame == Rect(x: 0, y: h - 2, width: row.length, height: 2))
        #expect(row.orientation.barLength(on: row.device) == row.length)
    }

    /// A hidden overlay already stands in the table's frame for its orientation.
    @Test(arguments: geometryCases)
    func hiddenOverlay(_ row: GeometryCase) {
        let engine = makeEngine {
            $0.device = row.device
            $0.orientation = row.orientation
            $0.presentation = .statusBar
        }
        let overlay = engine.overlay(at: .seconds(0))
        #expect(overlay.phase == .hidden)
        #expect(overlay.device == row.device)
        #expect(overlay.rotation == row.rotation)
        #expect(overlay.frame == row.frame)
        #expect(overlay.contentOffset == -row.device.statusBarHeight)
        #expect(overlay.label == nil)
    }

    /// The first three profiles keep MODEL §1's numbers; ipad is the default.
    @Test func deviceProfiles() {
        #expect(DeviceProfile.iphone == DeviceProfile(name: "iphone", width: 320, height: 480, statusBarHeight: 20))
        #expect(
            DeviceProfile.iphoneNotch
                == DeviceProfile(
                    name: "iphone-notch", width: 375, height: 812, statusBarHeight: 44, safeAreaTop: 44, cutout: .notch)
        )
        #expect(DeviceProfile.ipad == DeviceProfile(name: "ipad", width: 768, height: 1024, statusBarHeight: 20))
        #expect(EngineConfiguration().device == .ipad)
        #expect(EngineConfiguration().orientation == .portrait)
    }

    /// Orientation names are UIInterfaceOrientation's.
    @Test func orientationNames() {
        #expect(
            Orientation.allCases.map(\.rawValue) == [
                "portrait", "portraitUpsideDown", "landscapeLeft", "landscapeRight",
            ])
    }

    /// The label slides with the content: its y is the contentOffset, in the bar's own height.
    @Test func labelFollowsContentOffset() throws {
        var engine = makeEngine {
            $0.device = .iphoneNotch
            $0.presentation = .statusBar
        }
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(0)).label?.frame == Rect(x: 30, y: -44, width: 315, height: 44))
        #expect(engine.overlay(at: .seconds(0.125)).label?.frame == Rect(x: 30, y: -22, width: 315, height: 44))
        #expect(engine.overlay(at: .seconds(0.25)).label?.frame == Rect(x: 30, y: 0, width: 315, height: 44))
    }

    /// The label inset is configurable: (inset, contentOffset, L − 2·inset, h).
    @Test func configuredInset() throws {
        var engine = makeEngine { $0.inset = 10 }
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1)).label?.frame == Rect(x: 10, y: 0, width: 748, height: 20))
    }

    /// Changing the device changes the frame at once, and a running slide keeps its fraction in the
    /// new bar height (docs/BEHAVIOUR.md).
    @Test func deviceChangeDuringSlide() throws {
        var engine = makeEngine { $0.presentation = .statusBar }
        try engine.posted(.message("a"), at: .seconds(0))
        let changed = engine.changeDevice(to: .iphoneNotch, at: .seconds(0.125)).value
        #expect(changed)
        let overlay = engine.overlay(at: .seconds(0.125))
        #expect(overlay.frame == Rect(x: 0, y: 0, width: 375, height: 44))
        #expect(overlay.contentOffset == -22)
        #expect(overlay.animation?.from == -44)
        #expect(overlay.version == 2)
        let unchanged = engine.changeDevice(to: .iphoneNotch, at: .seconds(0.2)).value
        #expect(!unchanged)
        #expect(engine.version == 2)
    }
}
