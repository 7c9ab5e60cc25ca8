import MicroHTTP

/// `GET /overlayd.js`: the one ES module that defines `<overlayd-overlay>`, the element that draws
/// the overlay live on any web page, and through which the preview page draws.
///
/// The module is compiled in from three source files (Module/overlayd-1-base.js, -2-views.js,
/// -3-element.js), joined in that order: one file for the browser, files of a readable size here. What it needs to draw every screen to scale (the
/// device profiles, the progress bar's cap width and the text sizes) is written into it once, at
/// start: the overlay JSON names its device, not the device's size or cutout. Its ETag is a hash of
/// the bytes, so a restart with other settings serves another tag; `no-cache` makes a browser ask.
/// A page of another origin imports it in CORS mode: the server's CORS headers, which every answer
/// carries (`cors.allowOrigins`), decide whether that page may.
struct OverlaydModule: Sendable {
    let answer: StaticAnswer

    /// Where the settings go in the module: the value of `export const settings`.
    static let placeholder = Array("{\"devices\":{}}".utf8)

    /// The module's source: its three parts, joined.
    static let source =
        PackageResources.overlayd_1_base_js + PackageResources.overlayd_2_views_js
        + PackageResources.overlayd_3_element_js

    init(configuration: ServiceConfiguration) {
        let module = OverlaydModule.source
        // Device names are 1–64 of A-Z a-z 0-9 . _ - , a cutout is one of three words and the rest
        // are numbers: the JSON is a JavaScript expression that nothing in it can break out of.
        var body = module
        if let start = PreviewPage.firstIndex(of: OverlaydModule.placeholder, in: module) {
            body =
                Array(module[..<start]) + OverlaydModule.settings(configuration)
                + Array(module[(start + OverlaydModule.placeholder.count)...])
        }
        answer = StaticAnswer(
            body: body, contentType: "text/javascript; charset=utf-8",
            headers: [Header(name: "X-Content-Type-Options", value: "nosniff")])
    }

    /// The module, or 304 when `If-None-Match` names its tag (or is `*`).
    func response(to request: HTTPRequest) -> HTTPResponse { answer.response(to: request) }

    /// `{"capWidth", "devices": {name: {width, height, statusBarHeight, safeAreaTop, cutout,
    /// island?}}, "titleSize", "subtitleSize"}`, the devices sorted by name (the same settings give
    /// the same bytes, and the same tag, in every process).
    static func settings(_ configuration: ServiceConfiguration) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("capWidth")
        json.number(configuration.engine.progressBarCapWidth)
        json.key("devices")
        json.beginObject()
        for profile in configuration.devices.values.sorted(by: { $0.name < $1.name }) {
            json.key(text: profile.name)
            json.beginObject()
            json.key("width")
            json.number(profile.width)
            json.key("height")
            json.number(profile.height)
            json.key("statusBarHeight")
            json.number(profile.statusBarHeight)
            // What the element needs to draw the screen's top as it is (docs/MODEL.md §10): the portrait
            // safe area, and the notch or the island (whose rectangle only the drawing uses).
            json.key("safeAreaTop")
            json.number(profile.safeAreaTop ?? profile.statusBarHeight)
            json.key("cutout")
            json.string(profile.cutout.rawValue)
            if let island = profile.island {
                json.key("island")
                json.beginObject()
                json.key("width")
                json.number(island.width)
                json.key("height")
                json.number(island.height)
                json.key("y")
                json.number(island.y)
                json.endObject()
            }
            json.endObject()
        }
        json.endObject()
        // The sizes the texts are measured at, to draw them at (in the font `GET /preview/font` serves).
        json.key("titleSize")
        json.number(configuration.text.titleSize)
        json.key("subtitleSize")
        json.number(configuration.text.subtitleSize)
        json.endObject()
        return json.bytes
    }
}
