import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `devices` in the configuration: the new members of a profile, merged into the built-in ones,
/// and each mistake refused naming its key.
@Suite("Device configuration")
struct DeviceConfigurationTests {
    static func devices(_ json: String) throws -> [String: DeviceProfile] {
        try ServiceConfiguration.loaded(file: json).devices
    }

    static func refusedKey(_ json: String) -> String? {
        ConfigurationError.loading(file: json)?.key
    }

    @Test func everyBuiltInIsThereByDefault() throws {
        let devices = try Self.devices("{}")
        #expect(devices.count == 8)
        #expect(devices["iphone-15-pro"] == DeviceProfile.iphone15Pro)
        #expect(devices["ipad-pro-11"] == DeviceProfile.ipadPro11)
    }

    @Test func aDeviceWithAnIsland() throws {
        let devices = try Self.devices(
            #"""
            {"devices": {"fold": {"width": 420, "height": 900, "statusBarHeight": 50, "safeAreaTop": 58,
              "cutout": "island", "island": {"width": 120, "height": 36, "y": 10}}}}
            """#)
        let fold = try #require(devices["fold"])
        #expect(fold.safeAreaTop == 58)
        #expect(fold.cutout == .island)
        #expect(fold.island == DeviceProfile.Island(width: 120, height: 36, y: 10))
        #expect(fold.topSafeArea(in: .landscapeLeft) == 0)
    }

    /// A member given to a built-in changes that member alone.
    @Test func mergedIntoTheBuiltIn() throws {
        let devices = try Self.devices(#"{"devices": {"iphone-15-pro": {"island": {"y": 12}}}}"#)
        let profile = try #require(devices["iphone-15-pro"])
        #expect(profile.island == DeviceProfile.Island(width: 126, height: 37.33, y: 12))
        #expect(profile.safeAreaTop == 59)
        let plain = try #require(try Self.devices(#"{"devices": {"ipad": {"safeAreaTop": null}}}"#)["ipad"])
        #expect(plain.topSafeArea(in: .portrait) == 20)
    }

    @Test(arguments: [
        (#"{"devices": {"ipad": {"cutout": "hole"}}}"#, "devices.ipad.cutout"),
        (#"{"devices": {"ipad": {"cutout": 1}}}"#, "devices.ipad.cutout"),
        (#"{"devices": {"ipad": {"safeAreaTop": -1}}}"#, "devices.ipad.safeAreaTop"),
        (#"{"devices": {"ipad": {"safeAreaTop": "44"}}}"#, "devices.ipad.safeAreaTop"),
        (#"{"devices": {"ipad": {"cutout": "island"}}}"#, "devices.ipad.island"),
        (#"{"devices": {"ipad": {"island": {"width": 100, "height": 30, "y": 10}}}}"#, "devices.ipad.island"),
        (#"{"devices": {"iphone-15-pro": {"cutout": "notch"}}}"#, "devices.iphone-15-pro.island"),
        (#"{"devices": {"iphone-15-pro": {"island": {"width": 500}}}}"#, "devices.iphone-15-pro.island.width"),
        (#"{"devices": {"iphone-15-pro": {"island": {"depth": 1}}}}"#, "devices.iphone-15-pro.island.depth"),
        (#"{"devices": {"iphone-15-pro": {"island": {"height": 0}}}}"#, "devices.iphone-15-pro.island.height"),
        (#"{"devices": {"iphone-15-pro": {"island": 3}}}"#, "devices.iphone-15-pro.island"),
        (
            #"{"devices": {"new": {"width": 400, "height": 800, "statusBarHeight": 40, "cutout": "island", "island": {"width": 100}}}}"#,
            "devices.new.island"
        ),
    ])
    func mistakesNameTheirKey(json: String, key: String) {
        #expect(Self.refusedKey(json) == key, "\(json)")
    }
}
