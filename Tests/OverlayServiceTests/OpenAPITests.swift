import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `openapi.yaml` kept true: every documented operation is routed and answers one of its documented
/// statuses, every route is documented, the server serves the file byte for byte, and real answers
/// have exactly the keys the schemas document. schemathesis (scripts/schemathesis) checks the rest
/// of the schemas against generated requests; this suite runs with every `swift test`.
///
/// There is no YAML library here, so the file keeps a regular layout (two spaces per level, one
/// key per line, flow lists only for `required` and `enum`) and `OpenAPIOutline` reads just that.
@Suite("OpenAPI description")
struct OpenAPITests {
    static let filePath = Repository.path("Sources/OverlayService/openapi.yaml")

    static func fileBytes() throws -> [UInt8] { try ConfigurationLoader.readFile(filePath) }

    static func outline() throws -> OpenAPIOutline {
        try OpenAPIOutline(String(decoding: fileBytes(), as: UTF8.self))
    }

    /// The paths whose operations every channel has, unprefixed (the `default` channel) and under
    /// `/channels/{name}`.
    static let channelPaths = [
        "/messages", "/messages/{id}", "/overlay", "/overlay/hold", "/overlay/release", "/overlay/dismiss",
        "/overlay/tap", "/orientation", "/device", "/presentation", "/statusbar", "/statusbar/controllers", "/events",
        "/preview",
    ]

    /// A request that should succeed, per documented operation: the path with its parameters
    /// filled in, and a JSON body for the writes.
    static func sample(_ operation: OpenAPIOutline.Operation, messageID: Int) -> (path: String, body: String?) {
        let path = operation.path.replacing("{name}", with: "default").replacing("{id}", with: "\(messageID)")
        let body: String? =
            switch (operation.method, operation.path.split(separator: "/").last.map(String.init) ?? "") {
            case ("POST", "messages"): #"{"text": "hello", "kind": "sending"}"#
            case ("PATCH", _): #"{"text": "changed"}"#
            case ("PUT", "orientation"): #"{"orientation": "landscapeLeft"}"#
            case ("PUT", "device"): #"{"device": "iphone"}"#
            case ("PUT", "presentation"): #"{"presentation": "pill"}"#
            case ("PUT", "statusbar"): #"{"hidden": true, "animation": "slide"}"#
            case ("PUT", "controllers"): #"{"root": "main", "controllers": [{"name": "main"}]}"#
            case ("POST", "clock"): #"{"advance": 0.5}"#
            case ("POST", "tokens"): #"{"label": "sample", "grants": [{"channels": "*", "access": "read"}]}"#
            default: nil
            }
        return (path, body)
    }

    /// Runs `body` with a server with the admin token set, the headers that carry it, and a token
    /// made on it.
    static func withAdminServer<Result>(
        _ body: (LiveServer, [(String, String)], HTTPReply) throws -> Result
    ) throws -> Result {
        try withLiveServer(configure: { $0.token = "openapi-admin-token" }) { admin in
            let asAdmin = [("Authorization", "Bearer openapi-admin-token")]
            let made = try admin.request(
                "POST", "/tokens", headers: asAdmin,
                body: #"{"label": "x", "grants": [{"channels": "*", "access": "read"}]}"#)
            return try body(admin, asAdmin, made)
        }
    }

    /// The file parses, declares OpenAPI 3.0.3 and the version the server reports, and every
    /// `$ref` names a component that exists.
    @Test func wellFormed() throws {
        let text = String(decoding: try Self.fileBytes(), as: UTF8.self)
        let outline = try Self.outline()
        #expect(outline.root["openapi"]?.value == "3.0.3")
        #expect(outline.root["info"]?["version"]?.value == OverlayService.version)
        #expect(!outline.operations.isEmpty)
        for line in text.split(separator: "\n") where line.contains("$ref: '#/") {
            let reference = line.split(separator: "'")[1].dropFirst(2).split(separator: "/").map(String.init)
            var node: OpenAPIOutline.Node? = outline.root
            for key in reference { node = node?[key] }
            #expect(node != nil, "dangling reference: \(line)")
        }
        // Security: writes need the bearer token; reads may go without (unless a read token is set).
        #expect(outline.root["components"]?["securitySchemes"]?["bearerAuth"]?["scheme"]?.value == "bearer")
    }

    /// Every refusal of the engine answers a code the error schema lists (schemathesis checks the
    /// codes it meets against that list).
    @Test func engineRefusalsAreDocumentedCodes() throws {
        let outline = try Self.outline()
        let codes = Set(
            outline.root["components"]?["schemas"]?["Error"]?["properties"]?["error"]?["properties"]?["code"]?[
                "enum"]?.flowList ?? [])
        let refusals: [EngineError] = [
            .invalidField(field: "text", reason: "x"), .messageNotFound(id: 1),
            .messageEnded(id: 1, state: .done), .nothingShown, .queueFull(limit: 1, retryAfter: .seconds(1)),
            .notScheduled(id: 1, state: .queued, field: "delay"), .scheduleFull(limit: 1, retryAfter: .seconds(1)),
        ]
        for refusal in refusals {
            #expect(codes.contains(APIError(refusal).code), "\(refusal)")
        }
    }

    /// Every documented status is one overlayd uses, every operation documents a success, each write
    /// documents 401, and the shared answers (405 with Allow, 204 for OPTIONS) are there.
    @Test func statuses() throws {
        let outline = try Self.outline()
        // 414 is libmicrohttpd's own, for a request line too long for the pool (MalformedInputTests).
        let known: Set<Int> = [200, 201, 202, 204, 304, 400, 401, 403, 404, 405, 409, 413, 414, 415, 422, 429, 503]
        for operation in outline.operations {
            #expect(!operation.statuses.isEmpty, "\(operation) documents no response")
            #expect(Set(operation.statuses).isSubset(of: known), "\(operation): \(operation.statuses)")
            #expect(operation.statuses.contains { (200..<300).contains($0) }, "\(operation) documents no success")
            // A foreign Host while listening on loopback is 403 on every path.
            #expect(operation.statuses.contains(403), "\(operation) documents no 403")
            if ["POST", "PUT", "PATCH", "DELETE"].contains(operation.method) {
                #expect(operation.statuses.contains(401), "\(operation) documents no 401")
                #expect(operation.statuses.contains(429), "\(operation) documents no 429")
            }
            if operation.method == "OPTIONS" { #expect(operation.statuses.first == 204) }
        }
        let responses = outline.root["components"]?["responses"]
        #expect(responses?["MethodNotAllowed"]?["headers"]?["Allow"] != nil)
        #expect(responses?["Options"]?["headers"]?["Allow"] != nil)
        #expect(responses?["Unauthorized"]?["headers"]?["WWW-Authenticate"] != nil)
        #expect(responses?["Options"]?["headers"]?["Access-Control-Allow-Headers"] != nil)
        #expect(responses?["RateLimited"]?["headers"]?["Retry-After"] != nil)
    }

    /// The route table is exactly what the file documents (every channel row also under
    /// `/channels/{name}`), writes document the bearer token and reads do not require it, and
    /// every documented path answers OPTIONS.
    @Test func everyRouteIsDocumentedAndNothingElse() throws {
        let outline = try Self.outline()
        var routed: Set<String> = []
        for route in OverlayService.routes {
            routed.insert("\(route.method) \(route.path)")
            if route.scope == .channel { routed.insert("\(route.method) /channels/{name}\(route.path)") }
        }
        let documented = Set(outline.operations.filter { $0.method != "OPTIONS" }.map { "\($0.method) \($0.path)" })
        #expect(routed.subtracting(documented).sorted() == [], "routed but not documented")
        #expect(documented.subtracting(routed).sorted() == [], "documented but not routed")
        for path in Set(outline.operations.map(\.path)) {
            #expect(outline.operations.contains { $0.path == path && $0.method == "OPTIONS" }, "\(path) has no OPTIONS")
        }
        #expect(Set(Self.channelPaths) == Set(OverlayService.routes.filter { $0.scope == .channel }.map(\.path)))
        for route in OverlayService.routes {
            let node = outline.root["paths"]?[route.path]?[route.method.lowercased()]
            let security = node?["security"]?.children.map { $0.value ?? "" } ?? []
            switch route.access {
            case .open, .subrequest:
                #expect(security == [], "\(route.method) \(route.path) is open: security: []")
            case .anyone, .read, .readEverything, .readSome:
                #expect(security.contains("{}"), "\(route.method) \(route.path) needs no credential unless configured")
            case .write, .writeEverything, .admin:
                #expect(!security.contains("{}"), "\(route.method) \(route.path) needs a credential")
            }
        }
    }

    /// Every documented operation is routed on a live server, answers one of its documented
    /// statuses to a sensible request, and OPTIONS lists exactly the documented methods.
    @Test func everyDocumentedOperationIsRouted() throws {
        let outline = try Self.outline()
        try withLiveServer { live in
            // A hierarchy decides only with controllers appearance (else 409): that PUT goes to a
            // server configured so.
            try withLiveServer(configure: { $0.engine.statusBar.appearance = .controllers }) { controllers in
                // Token management needs an admin: those operations go to a server with `token` set, as
                // it, with a token made for the ones on /tokens/{id}.
                try Self.withAdminServer { admin, asAdmin, made throws in
                    let madeID = try #require(made.json["id"]?.string)
                    // Messages in both spellings of the default channel, so that ids exist for every
                    // operation on /messages/{id} (a DELETE ends one; later PATCHes of it are 409).
                    var nextID = 1
                    for _ in outline.operations.filter({ $0.path.hasSuffix("{id}") }) {
                        #expect(try live.post("/messages", json: #"{"text": "target"}"#).status == 202)
                    }
                    for operation in outline.operations {
                        let (path, body) = Self.sample(operation, messageID: nextID)
                        if operation.path.hasSuffix("{id}") { nextID += 1 }
                        // A finger holds or swipes a shown message: one is shown at once for it, once the status
                        // bar the PUT /statusbar before hid is shown again and every animation has ended.
                        if operation.method == "POST"
                            && (path.hasSuffix("/hold") || path.hasSuffix("/dismiss") || path.hasSuffix("/tap"))
                        {
                            #expect(try live.request("PUT", "/statusbar?hidden=false&animation=none").status == 200)
                            try live.advance(1)
                            #expect(
                                try live.post("/messages", json: #"{"text": "touched", "immediate": true}"#).status
                                    == 202)
                        }
                        let status: Int
                        let answer: String
                        if operation.method == "GET" && operation.path.hasSuffix("/events") {
                            // An event stream never ends: the service's dispatch, with a detached responder, gives its
                            // head and its first event.
                            let response = live.server.service.answer(HTTPRequest(method: "GET", path: path))
                            (status, answer) = (
                                response.status, String(decoding: response.body.prefix(200), as: UTF8.self)
                            )
                            #expect(response.header("Content-Type") == "text/event-stream; charset=utf-8")
                        } else {
                            var headers = body == nil ? [] : [("Content-Type", "application/json")]
                            var server =
                                operation.method == "PUT" && path.hasSuffix("/controllers") ? controllers : live
                            var path = path
                            if operation.method == "DELETE" && operation.path == "/channels/{name}" {
                                // Every other operation reads or writes `default`, which cannot be deleted.
                                #expect(
                                    try live.post("/channels/doomed/messages", json: #"{"text": "x"}"#).status == 202)
                                path = "/channels/doomed"
                            }
                            if operation.path.hasPrefix("/tokens") {
                                server = admin
                                headers += asAdmin
                                path = operation.path.replacing("{id}", with: madeID)
                            }
                            let response = try server.request(operation.method, path, headers: headers, body: body)
                            (status, answer) = (response.status, response.text)
                            if operation.method == "OPTIONS" {
                                let documented = outline.operations.filter { $0.path == operation.path }.map(\.method)
                                let allowed = Set(
                                    (response.header("Allow") ?? "").split(separator: ",").map { $0.trimmingSpaces() })
                                let expected = Set(documented + (documented.contains("GET") ? ["HEAD"] : []))
                                #expect(
                                    allowed == expected, "\(operation): Allow \(response.header("Allow") ?? "none")")
                            }
                        }
                        #expect(
                            operation.statuses.contains(status), "\(operation) \(path) answered \(status): \(answer)")
                        #expect((200..<300).contains(status), "\(operation) \(path) answered \(status): \(answer)")
                    }
                }
            }
        }
    }

    /// `GET /openapi.yaml` is the file, byte for byte, as YAML.
    @Test func servedFileIsTheFile() throws {
        try withLiveServer { live in
            let response = try live.get("/openapi.yaml")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/yaml; charset=utf-8")
            #expect(response.body == (try Self.fileBytes()))
        }
    }

    /// Real answers have exactly the keys their schema documents: every documented property is
    /// required (the schemas say which may be null), and nothing undocumented is sent.
    @Test func answersHaveTheDocumentedKeys() throws {
        let outline = try Self.outline()
        try withLiveServer { live in
            func expectKeys(
                _ value: JSONValue?, _ schemaPath: [String], optional: Set<String> = [],
                sourceLocation: SourceLocation = #_sourceLocation
            ) {
                guard case .object(let members)? = value else {
                    Issue.record(
                        "not an object for \(schemaPath): \(String(describing: value))", sourceLocation: sourceLocation)
                    return
                }
                var node: OpenAPIOutline.Node? = outline.root["components"]?["schemas"]
                for key in schemaPath { node = node?[key] }
                let required = Set(node?["required"]?.flowList ?? [])
                let properties = Set(node?["properties"]?.children.map(\.key) ?? [])
                #expect(!required.isEmpty, "\(schemaPath) documents no required keys", sourceLocation: sourceLocation)
                #expect(properties.subtracting(optional) == required, "\(schemaPath)", sourceLocation: sourceLocation)
                #expect(
                    Set(members.keys).subtracting(optional) == required, "\(schemaPath): \(members.keys.sorted())",
                    sourceLocation: sourceLocation)
                #expect(Set(members.keys).isSubset(of: properties), "\(schemaPath)", sourceLocation: sourceLocation)
            }

            expectKeys(try live.get("/").json, ["Index"])
            expectKeys(try live.get("/healthz").json, ["Health"])
            expectKeys(try live.get("/clock").json, ["Clock"])
            expectKeys(try live.advance(1).json, ["Clock"])
            expectKeys(try live.get("/overlay").json, ["Overlay"])

            let posted = try live.post(
                "/messages", json: #"{"text": "Downloading", "kind": "progress", "progress": 0.5}"#)
            #expect(posted.status == 202)
            expectKeys(posted.json, ["Message"])
            expectKeys(try live.get("/messages").json, ["MessageList"])
            expectKeys(try live.get("/messages").json["messages"]?[0], ["Message"])
            expectKeys(try live.get("/messages/1").json, ["Message"])

            let overlay = try live.overlay()
            expectKeys(overlay, ["Overlay"])
            let nested = ["Overlay", "properties"]
            expectKeys(overlay["message"], nested + ["message"])
            expectKeys(overlay["label"], ["TextLine"])
            expectKeys(overlay["style"], nested + ["style"])
            expectKeys(overlay["progressBar"], nested + ["progressBar"])
            expectKeys(overlay["animation"], nested + ["animation"], optional: ["curve"])
            expectKeys(overlay["frame"], ["Rect"])
            expectKeys(overlay["statusBar"], ["StatusBar"])
            expectKeys(overlay["statusBar"]?["frame"], ["Rect"])
            #expect(overlay["held"]?.bool == false)

            // A pill with a subtitle and an icon, held.
            #expect(try live.request("PUT", "/presentation", body: "pill").status == 200)
            #expect(try live.request("PATCH", "/messages/1", body: "subtitle=half+way&icon=%E2%AC%87").status == 200)
            #expect(try live.request("POST", "/overlay/hold").status == 200)
            let pill = try live.overlay()
            expectKeys(pill, ["Overlay"])
            expectKeys(pill["subtitle"], ["TextLine"])
            expectKeys(pill["accessory"], nested + ["accessory"])
            expectKeys(pill["pill"], nested + ["pill"])
            expectKeys(pill["touch"], nested + ["touch"])

            // The reader's side: a click, actions and a tap on one.
            let actions =
                #"[{"id": "open", "label": "Open", "url": "https://example.com/a"}, {"id": "later", "label": "Later"}]"#
            let patched = try live.request(
                "PATCH", "/messages/1", headers: [("Content-Type", "application/json")],
                body: #"{"click": "https://example.com", "actions": \#(actions), "accessibilityLabel": "Half way"}"#)
            #expect(patched.status == 200, "\(patched.text)")
            let tapped = try live.request("POST", "/overlay/tap", body: "open")
            #expect(tapped.status == 200, "\(tapped.text)")
            expectKeys(tapped.json, ["Message"])
            expectKeys(tapped.json["actions"]?[0], ["Action"])
            expectKeys(tapped.json["actions"]?[1], ["Action"])
            expectKeys(tapped.json["taps"]?[0], ["Tap"])
            let reading = try live.overlay()
            expectKeys(reading, ["Overlay"])
            expectKeys(reading["message"], nested + ["message"])
            expectKeys(reading["message"]?["taps"]?[0], ["Tap"])
            expectKeys(try live.request("POST", "/overlay/dismiss").json, ["Message"])

            // The status bar hiding (its animation), then its state with a hierarchy.
            let hidden = try live.request("PUT", "/statusbar?hidden=true&animation=slide")
            #expect(hidden.status == 200)
            expectKeys(hidden.json, ["Overlay"])
            expectKeys(
                hidden.json["statusBar"]?["animation"], ["StatusBar", "properties", "animation"], optional: ["curve"])
            expectKeys(try live.get("/statusbar").json, ["StatusBarState"])
            try withLiveServer(configure: { $0.engine.statusBar.appearance = .controllers }) { controllers in
                // Token management needs an admin: those operations go to a server with `token` set, as
                // it, with a token made for the ones on /tokens/{id}.
                try Self.withAdminServer { admin, asAdmin, made throws in
                    expectKeys(made.json, ["CreatedToken"])
                    let madeID = try #require(made.json["id"]?.string)
                    expectKeys(try admin.request("GET", "/tokens/\(madeID)", headers: asAdmin).json, ["Token"])
                    expectKeys(try admin.request("GET", "/whoami", headers: asAdmin).json, ["Principal"])
                    let hierarchy =
                        #"{"root": "main", "controllers": [{"name": "main", "presented": "modal"}, {"name": "modal"}]}"#
                    #expect(try controllers.request("PUT", "/statusbar/controllers", body: hierarchy).status == 200)
                    let state = try controllers.get("/statusbar").json
                    expectKeys(state, ["StatusBarState"])
                    expectKeys(state["hierarchy"], ["ControllerHierarchy"])
                    expectKeys(state["hierarchy"]?["controllers"]?[1], ["Controller"])
                    let refused = try controllers.request("PUT", "/statusbar", body: #"{"hidden": true}"#)
                    #expect(refused.status == 409)
                    expectKeys(refused.json["error"], ["Error", "properties", "error"], optional: ["field"])

                    expectKeys(try live.get("/channels").json, ["ChannelList"])
                    expectKeys(try live.get("/channels").json["channels"]?[0], ["Channel"])
                    expectKeys(try live.get("/channels/default").json, ["Channel"])

                    let error = try live.get("/messages/99")
                    #expect(error.status == 404)
                    expectKeys(error.json, ["Error"])
                    expectKeys(error.json["error"], ["Error", "properties", "error"], optional: ["field"])
                    let invalid = try live.post("/messages", json: #"{"text": "x", "progress": 2}"#)
                    #expect(invalid.status == 422)
                    expectKeys(invalid.json["error"], ["Error", "properties", "error"], optional: ["field"])
                    #expect(invalid.json["error"]?["field"]?.string == "progress")

                    // Every error code the server sends is in the documented enum.
                    let codes = Set(
                        outline.root["components"]?["schemas"]?["Error"]?["properties"]?["error"]?["properties"]?[
                            "code"]?[
                                "enum"]?
                            .flowList ?? [])
                    for code in [
                        "not_found", "invalid_field", "bad_request", "method_not_allowed", "unsupported_media_type",
                        "origin_not_allowed", "host_not_allowed", "controller_based_appearance", "unauthorized",
                        "invalid_token",
                        "forbidden", "too_many_tokens",
                    ] {
                        #expect(codes.contains(code), "\(code) is not documented")
                    }
                    #expect(codes.contains(try live.request("DELETE", "/").errorCode ?? ""))
                    #expect(
                        codes.contains(
                            try live.request("POST", "/messages", headers: [("Content-Type", "image/png")], body: "x")
                                .errorCode
                                ?? ""))
                }
            }
        }
    }
}
