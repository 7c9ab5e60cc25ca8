import OverlayEngine
import Testing

/// The devices of today: every built-in profile's numbers, and the top safe area in each
/// orientation.
@Suite("Device profiles")
struct DeviceProfileTests {
    typealias Row = (
        name: String, width: Double, height: Double, bar: Double, safeArea: Double, cutout: DeviceProfile.Cutout,
        island: DeviceProfile.Island?
    )

    static let table: [Row] = [
        ("iphone", 320, 480, 20, 20, .none, nil),
        ("iphone-se", 375, 667, 20, 20, .none, nil),
        ("iphone-notch", 375, 812, 44, 44, .notch, nil),
        ("iphone-14", 390, 844, 47, 47, .notch, nil),
        ("iphone-15-pro", 393, 852, 54, 59, .island, DeviceProfile.Island(width: 126, height: 37.33, y: 11)),
        ("iphone-16-pro", 402, 874, 54, 62, .island, DeviceProfile.Island(width: 126, height: 37.33, y: 14)),
        ("ipad", 768, 1024, 20, 20, .none, nil),
        ("ipad-pro-11", 834, 1194, 24, 24, .none, nil),
    ]

    @Test func theEightBuiltInProfiles() {
        #expect(DeviceProfile.builtIn.map(\.name) == Self.table.map(\.name))
        for (profile, row) in zip(DeviceProfile.builtIn, Self.table) {
            #expect(profile.width == row.width, "\(row.name)")
            #expect(profile.height == row.height, "\(row.name)")
            #expect(profile.statusBarHeight == row.bar, "\(row.name)")
            #expect(profile.topSafeArea(in: .portrait) == row.safeArea, "\(row.name)")
            #expect(profile.cutout == row.cutout, "\(row.name)")
            #expect(profile.island == row.island, "\(row.name)")
        }
    }

    /// s' is s in the portrait orientations; in landscape 0 with a cutout and h without.
    @Test(arguments: DeviceProfileTests.table.map(\.name))
    func topSafeAreaByOrientation(name: String) throws {
        let profile = try #require(DeviceProfile.builtIn.first { $0.name == name })
        let row = try #require(Self.table.first { $0.name == name })
        #expect(profile.topSafeArea(in: .portrait) == row.safeArea)
        #expect(profile.topSafeArea(in: .portraitUpsideDown) == row.safeArea)
        let landscape = row.cutout == .none ? row.bar : 0
        #expect(profile.topSafeArea(in: .landscapeLeft) == landscape)
        #expect(profile.topSafeArea(in: .landscapeRight) == landscape)
    }

    /// A profile without a safe area of its own has h for it.
    @Test func safeAreaDefaultsToTheStatusBar() {
        let kiosk = DeviceProfile(name: "kiosk", width: 1080, height: 1920, statusBarHeight: 24)
        #expect(kiosk.topSafeArea(in: .portrait) == 24)
        #expect(kiosk.topSafeArea(in: .landscapeLeft) == 24)
        let notched = DeviceProfile(name: "n", width: 400, height: 800, statusBarHeight: 30, cutout: .notch)
        #expect(notched.topSafeArea(in: .portrait) == 30)
        #expect(notched.topSafeArea(in: .landscapeRight) == 0)
    }
}
