import MicroHTTP
import OverlayEngine

/// Reads `PUT /statusbar` and `PUT /statusbar/controllers` into the engine's values, or the error
/// to answer. Rules that need the channel's state (the appearance mode) are the engine's.
///
/// `package`, like `RequestFields`, so that the fuzz target can call it directly.
package enum StatusBarDecoder {
    package static let settingFields = ["style", "hidden", "animation"]
    package static let hierarchyFields = ["root", "controllers"]
    package static let controllerFields: Set<String> = [
        "name", "preferredStatusBarStyle", "prefersStatusBarHidden", "preferredStatusBarUpdateAnimation",
        "childForStatusBarStyle", "childForStatusBarHidden", "presented", "fullScreen",
        "modalPresentationCapturesStatusBarAppearance",
    ]

    /// `style`, `hidden` and `animation` from a JSON object or query parameters
    /// (`?hidden=true&animation=slide`). At least one is needed: a PUT that sets nothing is a
    /// mistake (a misspelt field is refused before that as unknown).
    package static func input(_ request: borrowing HTTPRequest) throws(APIError) -> StatusBarInput {
        let fields = try RequestFields(request, textField: nil)
        try fields.rejectUnknown(allowing: settingFields)
        var input = StatusBarInput()
        if let text = try fields.string("style") {
            input.style = try choice(text.trimmingSpaces(), field: "style")
        }
        input.hidden = try fields.bool("hidden")
        if let text = try fields.string("animation") {
            input.animation = try choice(text.trimmingSpaces(), field: "animation")
        }
        guard !input.isEmpty else {
            throw APIError(
                status: 422, code: "invalid_field",
                message: "nothing to set: give one or more of \(settingFields.sorted().joined(separator: ", "))")
        }
        return input
    }

    /// The hierarchy from a JSON body `{"root": …, "controllers": [ … ]}`. A value of the wrong type
    /// anywhere in it is 422 naming its path (`controllers[2].presented`), as is every rule the
    /// hierarchy breaks; an unknown member is 400, as for every other body.
    package static func hierarchy(_ request: borrowing HTTPRequest) throws(APIError) -> ControllerHierarchy {
        let fields = try RequestFields(request, textField: nil)
        try fields.rejectUnknown(allowing: hierarchyFields)
        return try hierarchy(root: fields.json("root"), controllers: fields.json("controllers"))
    }

    package static func hierarchy(root: JSONValue?, controllers: JSONValue?) throws(APIError) -> ControllerHierarchy {
        guard let root else { throw .invalidField("root", "is required") }
        guard case .string(let rootName) = root else {
            throw .invalidField("root", "must be a controller's name, not \(root.typeName)")
        }
        guard let controllers else { throw .invalidField("controllers", "is required") }
        guard case .array(let elements) = controllers else {
            throw .invalidField("controllers", "must be an array of controllers, not \(controllers.typeName)")
        }
        // Counted before any element is read: a body of thousands of tiny controllers costs nothing.
        guard elements.count <= ControllerHierarchy.maximumControllers else {
            throw .invalidField(
                "controllers", "must hold at most \(ControllerHierarchy.maximumControllers) controllers")
        }
        var decoded: [ControllerHierarchy.Controller] = []
        decoded.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            decoded.append(try controller(element, path: "controllers[\(index)]"))
        }
        switch ControllerHierarchy.validated(root: rootName, controllers: decoded) {
        case .success(let hierarchy): return hierarchy
        case .failure(let error): throw APIError(error)
        }
    }

    private static func controller(
        _ value: JSONValue, path: String
    ) throws(APIError) -> ControllerHierarchy.Controller {
        guard case .object(let members) = value else {
            throw .invalidField(path, "must be an object, not \(value.typeName)")
        }
        if let unknown = members.keys.filter({ !controllerFields.contains($0) }).min() {
            throw .badRequest(
                "unknown field \(path).\(unknown); expected one of \(controllerFields.sorted().joined(separator: ", "))",
                field: "\(path).\(unknown)")
        }
        guard let nameValue = members["name"] else { throw .invalidField("\(path).name", "is required") }
        var controller = ControllerHierarchy.Controller(name: try string(nameValue, "\(path).name"))
        if let value = members["preferredStatusBarStyle"] {
            let field = "\(path).preferredStatusBarStyle"
            controller.preferredStatusBarStyle = try choice(try string(value, field), field: field)
        }
        if let value = members["prefersStatusBarHidden"] {
            controller.prefersStatusBarHidden = try bool(value, "\(path).prefersStatusBarHidden")
        }
        if let value = members["preferredStatusBarUpdateAnimation"] {
            let field = "\(path).preferredStatusBarUpdateAnimation"
            controller.preferredStatusBarUpdateAnimation = try choice(try string(value, field), field: field)
        }
        if let value = members["childForStatusBarStyle"] {
            controller.childForStatusBarStyle = try link(value, "\(path).childForStatusBarStyle")
        }
        if let value = members["childForStatusBarHidden"] {
            controller.childForStatusBarHidden = try link(value, "\(path).childForStatusBarHidden")
        }
        if let value = members["presented"] {
            controller.presented = try link(value, "\(path).presented")
        }
        if let value = members["fullScreen"] {
            controller.fullScreen = try bool(value, "\(path).fullScreen")
        }
        if let value = members["modalPresentationCapturesStatusBarAppearance"] {
            controller.modalPresentationCapturesStatusBarAppearance = try bool(
                value, "\(path).modalPresentationCapturesStatusBarAppearance")
        }
        return controller
    }

    private static func string(_ value: JSONValue, _ field: String) throws(APIError) -> String {
        guard case .string(let text) = value else {
            throw .invalidField(field, "must be a string, not \(value.typeName)")
        }
        return text
    }

    /// A link to another controller: its name, or null for none.
    private static func link(_ value: JSONValue, _ field: String) throws(APIError) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw .invalidField(field, "must be a controller's name or null, not \(value.typeName)")
        }
    }

    private static func bool(_ value: JSONValue, _ field: String) throws(APIError) -> Bool {
        guard case .bool(let flag) = value else {
            throw .invalidField(field, "must be true or false, not \(value.typeName)")
        }
        return flag
    }

    /// One of an enumeration's names, exactly as the API spells them.
    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, field: String
    ) throws(APIError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            throw .invalidField(field, "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }
}

extension APIError {
    /// The HTTP meaning of a status-bar refusal: 422 for a broken rule, 409
    /// `controller_based_appearance` for a request the configured appearance mode does not take.
    /// overlayd says why where UIKit would silently ignore the request.
    init(_ error: StatusBarError) {
        switch error {
        case .invalidField(let field, let reason):
            self = .invalidField(field, reason)
        case .wrongAppearance(let field, .controllers):
            self = APIError(
                status: 409, code: "controller_based_appearance",
                message:
                    "\(field) is decided by the controller hierarchy (statusBar.appearance is controllers); "
                    + "send the hierarchy with PUT /statusbar/controllers, or configure statusBar.appearance application",
                field: field)
        case .wrongAppearance(let field, .application):
            self = APIError(
                status: 409, code: "controller_based_appearance",
                message:
                    "the controller hierarchy decides nothing while statusBar.appearance is application; "
                    + "set style and hidden with PUT /statusbar, or configure statusBar.appearance controllers",
                field: field)
        }
    }
}
