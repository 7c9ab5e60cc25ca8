import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// The `statusBar` object of the configuration (docs/STATUSBAR.md "Configuration"): every key
/// read, each colour pair given whole, and every bad value refused naming its dotted key.
@Suite("Status bar configuration")
struct StatusBarConfigurationTests {
    /// Every key, with values that are not the defaults.
    @Test func everyKey() throws {
        let json = ##"""
            {"statusBar": {"appearance": "controllers", "style": "darkContent", "hiddenAtLaunch": true,
              "animationDuration": 0.5, "colours": {
                "lightContent": {"background": "#222222", "foreground": "#eeeeee"},
                "darkContent": {"background": "#FFFFFF", "foreground": "#333333"}}}}
            """##
        let bar = try ServiceConfiguration.loaded(file: json).engine.statusBar
        #expect(bar.appearance == .controllers)
        #expect(bar.style == .darkContent)
        #expect(bar.hiddenAtLaunch)
        #expect(bar.animationDuration == .seconds(0.5))
        #expect(bar.lightContentColours == Style(background: "#222222", foreground: "#EEEEEE"))
        #expect(bar.darkContentColours == Style(background: "#FFFFFF", foreground: "#333333"))
        // A light pair set back to null keeps the kinds' own styles again; keys left out keep
        // their defaults.
        let null = #"{"statusBar": {"colours": {"lightContent": null}}}"#
        let reset = try ServiceConfiguration.loaded(file: null)
        #expect(reset.engine.statusBar == StatusBarConfiguration())
        #expect(ServiceConfiguration().engine.statusBar.lightContentColours == nil)
    }

    /// A bad value names its dotted key; nothing partial is applied.
    @Test(arguments: [
        (#"{"statusBar": 1}"#, "statusBar"),
        (#"{"statusBar": {"apperance": "controllers"}}"#, "statusBar.apperance"),
        (#"{"statusBar": {"appearance": "viewControllers"}}"#, "statusBar.appearance"),
        (#"{"statusBar": {"style": "dark"}}"#, "statusBar.style"),
        (#"{"statusBar": {"hiddenAtLaunch": "yes"}}"#, "statusBar.hiddenAtLaunch"),
        (#"{"statusBar": {"animationDuration": -1}}"#, "statusBar.animationDuration"),
        (#"{"statusBar": {"animationDuration": 61}}"#, "statusBar.animationDuration"),
        (#"{"statusBar": {"colours": []}}"#, "statusBar.colours"),
        (#"{"statusBar": {"colours": {"light": null}}}"#, "statusBar.colours.light"),
        (#"{"statusBar": {"colours": {"darkContent": null}}}"#, "statusBar.colours.darkContent"),
        (
            ##"{"statusBar": {"colours": {"darkContent": {"background": "#FFFFFF"}}}}"##,
            "statusBar.colours.darkContent.foreground"
        ),
        (
            ##"{"statusBar": {"colours": {"lightContent": {"foreground": "#FFFFFF"}}}}"##,
            "statusBar.colours.lightContent.background"
        ),
        (
            ##"{"statusBar": {"colours": {"lightContent": {"background": "white", "foreground": "#FFFFFF"}}}}"##,
            "statusBar.colours.lightContent.background"
        ),
        (
            ##"{"statusBar": {"colours": {"darkContent": {"background": "#FFFFFF", "foreground": "#000000", "tint": "#000000"}}}}"##,
            "statusBar.colours.darkContent.tint"
        ),
    ])
    func invalidValue(json: String, key: String) {
        let error = ConfigurationError.loading(file: json)
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.isEmpty == false)
    }
}
