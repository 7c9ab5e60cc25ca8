import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `PUT /statusbar` and `PUT /statusbar/controllers` read from hand-built requests: JSON and query
/// parameters, every wrong type and rule named by its field, and hostile bodies.
@Suite("Status bar request decoding")
struct StatusBarDecoderTests {
    static func input(query: [QueryItem] = [], json body: String = "") throws(APIError) -> StatusBarInput {
        try StatusBarDecoder.input(HTTPRequest.put("/statusbar", query: query, json: body))
    }

    static func hierarchy(_ body: String) throws(APIError) -> ControllerHierarchy {
        try StatusBarDecoder.hierarchy(HTTPRequest.put("/statusbar/controllers", json: body))
    }

    /// The error a decoding throws, or `nil` if it succeeded.
    static func error<T>(_ decode: () throws(APIError) -> T) -> APIError? {
        do {
            _ = try decode()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - PUT /statusbar

    /// A JSON body sets any of the three; what is left out stays unset.
    @Test func settingsFromJSON() throws {
        #expect(
            try Self.input(json: #"{"style": "darkContent", "hidden": true, "animation": "slide"}"#)
                == StatusBarInput(style: .darkContent, hidden: true, animation: .slide))
        #expect(
            try Self.input(json: #"{"hidden": false, "animation": "fade"}"#)
                == StatusBarInput(hidden: false, animation: .fade))
        #expect(try Self.input(json: #"{"style": "default"}"#) == StatusBarInput(style: .default))
        #expect(try Self.input(json: #"{"animation": "none"}"#) == StatusBarInput(animation: StatusBarAnimation.none))
    }

    /// Query parameters (`curl -X PUT 'host/statusbar?hidden=true&animation=slide'`) read as text:
    /// booleans in their query spellings, a bare `?hidden` is true, values are trimmed.
    @Test func settingsFromQuery() throws {
        let query = [QueryItem(name: "hidden", value: "true"), QueryItem(name: "animation", value: "slide")]
        #expect(try Self.input(query: query) == StatusBarInput(hidden: true, animation: .slide))
        #expect(try Self.input(query: [QueryItem(name: "hidden", value: nil)]) == StatusBarInput(hidden: true))
        #expect(try Self.input(query: [QueryItem(name: "hidden", value: "0")]) == StatusBarInput(hidden: false))
        #expect(
            try Self.input(query: [QueryItem(name: "style", value: " lightContent ")])
                == StatusBarInput(style: .lightContent))
        // Query and body together, each name once.
        #expect(
            try Self.input(query: [QueryItem(name: "style", value: "darkContent")], json: #"{"hidden": true}"#)
                == StatusBarInput(style: .darkContent, hidden: true))
    }

    /// Each bad setting: unknown names and wrong JSON types are 400, unknown values 422, each
    /// naming its field; a PUT that sets nothing is 422.
    @Test(arguments: [
        (#"{"hiden": true}"#, [QueryItem](), 400, "hiden"),
        (#"{"hidden": "true"}"#, [], 400, "hidden"),
        (#"{"hidden": 1}"#, [], 400, "hidden"),
        (#"{"style": 3}"#, [], 400, "style"),
        (#"{"style": null}"#, [], 400, "style"),
        (#"{"style": "purple"}"#, [], 422, "style"),
        (#"{"style": "LightContent"}"#, [], 422, "style"),
        (#"{"animation": "curl"}"#, [], 422, "animation"),
        ("", [QueryItem(name: "hidden", value: "maybe")], 400, "hidden"),
        ("", [QueryItem(name: "animation", value: "")], 422, "animation"),
        ("", [QueryItem(name: "token", value: "x")], 400, "token"),
        (#"{"hidden": true}"#, [QueryItem(name: "hidden", value: "false")], 400, "hidden"),
    ])
    func badSettings(body: String, query: [QueryItem], status: Int, field: String) {
        let error = Self.error { () throws(APIError) in try Self.input(query: query, json: body) }
        #expect(error?.status == status)
        #expect(error?.field == field)
    }

    /// Bodies that are not a JSON object of settings are refused before any field is read.
    @Test func badBodies() {
        let empty = Self.error { () throws(APIError) in try Self.input() }
        #expect(empty?.status == 422)
        #expect(empty?.message.contains("animation, hidden, style") == true)
        #expect(Self.error { () throws(APIError) in try Self.input(json: "{}") }?.status == 422)
        #expect(Self.error { () throws(APIError) in try Self.input(json: #"{"hidden": tru}"#) }?.code == "invalid_json")
        #expect(Self.error { () throws(APIError) in try Self.input(json: "[true]") }?.status == 400)
        let text = HTTPRequest("PUT", "/statusbar", body: "hidden")
        #expect(Self.error { () throws(APIError) in try StatusBarDecoder.input(text) }?.status == 400)
        let xml = HTTPRequest(
            "PUT", "/statusbar", headers: [Header(name: "Content-Type", value: "application/xml")], body: "<a/>")
        #expect(Self.error { () throws(APIError) in try StatusBarDecoder.input(xml) }?.status == 415)
    }

    // MARK: - PUT /statusbar/controllers

    /// A tab bar under a custom root, as a body: the fields left out take their defaults.
    @Test func hierarchyFromJSON() throws {
        let hierarchy = try Self.hierarchy(
            #"""
            {"root": "main", "controllers": [
              {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs"},
              {"name": "tabs", "childForStatusBarStyle": "feed", "childForStatusBarHidden": null, "presented": null},
              {"name": "feed", "preferredStatusBarStyle": "lightContent", "prefersStatusBarHidden": true,
               "preferredStatusBarUpdateAnimation": "slide", "presented": "sheet"},
              {"name": "sheet", "fullScreen": false, "modalPresentationCapturesStatusBarAppearance": true}
            ]}
            """#)
        #expect(hierarchy.root == "main")
        #expect(hierarchy.controllers.map(\.name) == ["main", "tabs", "feed", "sheet"])
        #expect(
            hierarchy.controller(named: "main")
                == .init(name: "main", childForStatusBarStyle: "tabs", childForStatusBarHidden: "tabs"))
        #expect(hierarchy.controller(named: "tabs")?.childForStatusBarHidden == nil)
        #expect(
            hierarchy.controller(named: "sheet")
                == .init(name: "sheet", fullScreen: false, modalPresentationCapturesStatusBarAppearance: true))
        #expect(hierarchy.style.controller == "sheet")
        #expect(hierarchy.hidden.controller == "tabs")
    }

    /// Every wrong type in the hierarchy is 422 naming its path; an unknown member is 400 naming
    /// its path; each rule of the hierarchy is 422 naming the field at fault.
    @Test(arguments: [
        (#"{"controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": 1, "controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": null, "controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": "a"}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": {"name": "a"}}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": "a"}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": []}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": [{"name": "a"}, "b"]}"#, 422, "controllers[1]"),
        (#"{"root": "a", "controllers": [{"name": "a"}, null]}"#, 422, "controllers[1]"),
        (#"{"root": "a", "controllers": [{"preferredStatusBarStyle": "default"}]}"#, 422, "controllers[0].name"),
        (#"{"root": "a", "controllers": [{"name": ["a"]}]}"#, 422, "controllers[0].name"),
        (
            #"{"root": "a", "controllers": [{"name": "a", "preferredStatusBarStyle": "blue"}]}"#, 422,
            "controllers[0].preferredStatusBarStyle"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "preferredStatusBarStyle": null}]}"#, 422,
            "controllers[0].preferredStatusBarStyle"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "prefersStatusBarHidden": "yes"}]}"#, 422,
            "controllers[0].prefersStatusBarHidden"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "preferredStatusBarUpdateAnimation": 0}]}"#, 422,
            "controllers[0].preferredStatusBarUpdateAnimation"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a"}, {"name": "b", "presented": 7}]}"#, 422,
            "controllers[1].presented"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "childForStatusBarStyle": {}}]}"#, 422,
            "controllers[0].childForStatusBarStyle"
        ),
        (#"{"root": "a", "controllers": [{"name": "a", "fullScreen": 1}]}"#, 422, "controllers[0].fullScreen"),
        (
            #"{"root": "a", "controllers": [{"name": "a", "modalPresentationCapturesStatusBarAppearance": "no"}]}"#,
            422,
            "controllers[0].modalPresentationCapturesStatusBarAppearance"
        ),
        (#"{"root": "a", "controllers": [{"name": "a", "colour": "red"}]}"#, 400, "controllers[0].colour"),
        (#"{"root": "a", "controllers": [{"name": "a"}], "appearance": "controllers"}"#, 400, "appearance"),
        // The hierarchy's own rules, through the decoder.
        (#"{"root": "a", "controllers": [{"name": "a", "presented": "b"}]}"#, 422, "controllers[0].presented"),
        (#"{"root": "z", "controllers": [{"name": "a"}]}"#, 422, "root"),
        (
            #"{"root": "a", "controllers": [{"name": "a", "childForStatusBarHidden": "a"}]}"#, 422,
            "controllers[0].childForStatusBarHidden"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "presented": "b"}, {"name": "c", "presented": "b"}, {"name": "b"}]}"#,
            422, "controllers[1].presented"
        ),
        (#"{"root": "a", "controllers": [{"name": "a"}, {"name": "a"}]}"#, 422, "controllers[1].name"),
        (#"{"root": "a", "controllers": [{"name": "a"}, {"name": "a\u0000"}]}"#, 422, "controllers[1].name"),
        (#"{"root": "a", "controllers": [{"name": "a"}, {"name": "application"}]}"#, 422, "controllers[1].name"),
    ])
    func badHierarchies(body: String, status: Int, field: String) {
        let error = Self.error { () throws(APIError) in try Self.hierarchy(body) }
        #expect(error?.status == status, "\(error?.message ?? "accepted")")
        #expect(error?.field == field)
    }

    /// 64 controllers are taken; 65 are refused naming `controllers`, before any of them is read.
    @Test func controllerCount() throws {
        func body(_ count: Int, element: (Int) -> String) -> String {
            #"{"root": "c0", "controllers": ["# + (0..<count).map(element).joined(separator: ",") + "]}"
        }
        let chain = try Self.hierarchy(
            body(64) { index in
                index < 63
                    ? #"{"name": "c\#(index)", "childForStatusBarStyle": "c\#(index + 1)"}"# : #"{"name": "c63"}"#
            })
        #expect(chain.controllers.count == 64)
        #expect(chain.style.controller == "c63")
        let tooMany = Self.error { () throws(APIError) in try Self.hierarchy(body(65) { #"{"name": "c\#($0)"}"# }) }
        #expect(tooMany?.status == 422)
        #expect(tooMany?.field == "controllers")
        // Elements that are not even controllers: still the count is what is named.
        let junk = Self.error { () throws(APIError) in try Self.hierarchy(body(1000) { _ in "0" }) }
        #expect(junk?.field == "controllers")
    }

    /// Hostile bodies: nesting past the parser's limit, a body that is not an object, text, query
    /// values where arrays belong, and names that are not names. None is accepted; none crashes.
    @Test func hostileHierarchies() {
        let deep =
            #"{"root": "a", "controllers": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
            + "}"
        #expect(Self.error { () throws(APIError) in try Self.hierarchy(deep) }?.code == "invalid_json")
        #expect(Self.error { () throws(APIError) in try Self.hierarchy("[]") }?.status == 400)
        #expect(Self.error { () throws(APIError) in try Self.hierarchy("") }?.field == "root")
        let text = HTTPRequest("PUT", "/statusbar/controllers", body: "root=a")
        #expect(Self.error { () throws(APIError) in try StatusBarDecoder.hierarchy(text) }?.status == 400)
        let query = HTTPRequest(
            "PUT", "/statusbar/controllers",
            query: [QueryItem(name: "root", value: "a"), QueryItem(name: "controllers", value: "a")])
        let fromQuery = Self.error { () throws(APIError) in try StatusBarDecoder.hierarchy(query) }
        #expect(fromQuery?.status == 422)
        #expect(fromQuery?.field == "controllers")
        let long = String(repeating: "x", count: 10_000)
        let longName = Self.error { () throws(APIError) in
            try Self.hierarchy(#"{"root": "\#(long)", "controllers": [{"name": "\#(long)"}]}"#)
        }
        #expect(longName?.field == "controllers[0].name")
        let escaped = Self.error { () throws(APIError) in
            try Self.hierarchy(#"{"root": "a", "controllers": [{"name": "a", "\"}": 1}]}"#)
        }
        #expect(escaped?.status == 400)
        #expect(escaped?.field == #"controllers[0]."}"#)
        #expect(
            escaped.map { String(decoding: $0.body, as: UTF8.self) }.flatMap { try? JSONParser.parse(Array($0.utf8)) }
                != nil)
    }

    /// Mutations of a good body (bytes dropped, changed, repeated) are each either a valid
    /// hierarchy or a 400/415/422 refusal: nothing else, and no crash.
    @Test func mutatedBodies() {
        let good = Array(
            #"{"root":"m","controllers":[{"name":"m","childForStatusBarStyle":"t","presented":"p"},{"name":"t","prefersStatusBarHidden":true},{"name":"p","fullScreen":false}]}"#
                .utf8)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return Int(seed % UInt64(Int32.max))
        }
        var outcomes: [Int: Int] = [:]
        for _ in 0..<3000 {
            var body = good
            for _ in 0...(next() % 4) {
                let index = next() % body.count
                switch next() % 3 {
                case 0: body.remove(at: index)
                case 1: body[index] = UInt8(truncatingIfNeeded: next())
                default: body.insert(body[index], at: index)
                }
            }
            let request = HTTPRequest(method: "PUT", path: "/statusbar/controllers", headers: [.json], body: body)
            let status = Self.error { () throws(APIError) in try StatusBarDecoder.hierarchy(request) }?.status ?? 200
            outcomes[status, default: 0] += 1
        }
        #expect(Set(outcomes.keys).isSubset(of: [200, 400, 415, 422]))
        #expect(outcomes[400, default: 0] > 0)
        #expect(outcomes[422, default: 0] > 0)
    }

    /// A refusal for the other appearance mode is 409 `controller_based_appearance` naming the setting.
    @Test func appearanceRefusals() {
        let direct = APIError(StatusBarError.wrongAppearance(field: "hidden", appearance: .controllers))
        #expect(direct.status == 409)
        #expect(direct.code == "controller_based_appearance")
        #expect(direct.field == "hidden")
        #expect(direct.message.hasPrefix("hidden is decided by the controller hierarchy"))
        let hierarchy = APIError(StatusBarError.wrongAppearance(field: "controllers", appearance: .application))
        #expect(hierarchy.status == 409)
        #expect(hierarchy.code == "controller_based_appearance")
        #expect(hierarchy.message.contains("statusBar.appearance is application"))
        let invalid = APIError(
            StatusBarError.invalidField(field: "controllers[1].presented", reason: "names no controller"))
        #expect(invalid.status == 422)
        #expect(invalid.message == "controllers[1].presented names no controller")
    }
}
