import MicroHTTP
import OverlayEngine

/// Reads `PUT /statusbar` and `PUT /statusbar/controllers` into the engine's values, or the error
/// to answer. Rules that need the channel's state (the appearance mode) are the engine's.
///
/// `package`, like `FieldReader`, so that the fuzz target can call it directly.
package enum StatusBarDecoder {
    package static var settingFields: [String] { settings.names }
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
        var input = StatusBarInput()
        try FieldReader(request, settings).read(settings, into: &input)
        guard !input.isEmpty else {
            throw APIError(
                status: 422, code: "invalid_field",
                message: "nothing to set: give one or more of \(settingFields.sorted().joined(separator: ", "))")
        }
        return input
    }

    static let settings = FieldSet<StatusBarInput>([
        FieldRule(Field<StatusBarStyle>.choice("style")) { $0.style = $1 },
        FieldRule(Field.bool("hidden")) { $0.hidden = $1 },
        FieldRule(Field<StatusBarAnimation>.choice("animation")) { $0.animation = $1 },
    ])

    /// The hierarchy from a JSON body `{"root": …, "controllers": [ … ]}`. A value of the wrong type
    /// anywhere in it is 422 naming its path (`controllers[2].presented`), as is every rule the
    /// hierarchy breaks; an unknown member is 400, as for every other body.
    package static func hierarchy(_ request: borrowing HTTPRequest) throws(APIError) -> ControllerHierarchy {
        // JSON only: a hierarchy nests, which a form cannot.
        let fields = try FieldReader(request, textField: nil, formNames: [])
        try fields.rejectUnknown(allowing: hierarchyFields)
        return try hierarchy(root: fields.value("root")?.json, controllers: fields.value("controllers")?.json)
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
        /// A member read as its type; every refusal in a hierarchy is 422 naming the member's path.
        func read<Value>(
            _ member: String, _ read: (FieldValue) throws(FieldProblem) -> Value
        ) throws(APIError) -> Value? {
            guard let value = member == "name" ? nameValue : members[member] else { return nil }
            do throws(FieldProblem) {
                return try read(.json(value))
            } catch {
                throw .invalidField("\(path).\(member)", error.reason)
            }
        }
        /// A link to another controller: its name, or null for none.
        func link(_ member: String) throws(APIError) -> String?? {
            try read(member) { (value) throws(FieldProblem) in
                if value.isNull { return nil }
                guard case .json(.string(let name)) = value else {
                    throw FieldProblem(.invalid, "must be a controller's name or null, not \(value.described)")
                }
                return name
            }
        }
        var controller = ControllerHierarchy.Controller(
            name: try read("name") { (value) throws(FieldProblem) in try value.string() }!)
        if let style = try read(
            "preferredStatusBarStyle", { (value) throws(FieldProblem) in try value.choice(StatusBarStyle.self) })
        {
            controller.preferredStatusBarStyle = style
        }
        if let hidden = try read("prefersStatusBarHidden", { (value) throws(FieldProblem) in try value.bool() }) {
            controller.prefersStatusBarHidden = hidden
        }
        if let animation = try read(
            "preferredStatusBarUpdateAnimation",
            { (value) throws(FieldProblem) in try value.choice(StatusBarAnimation.self) })
        {
            controller.preferredStatusBarUpdateAnimation = animation
        }
        if let child = try link("childForStatusBarStyle") { controller.childForStatusBarStyle = child }
        if let child = try link("childForStatusBarHidden") { controller.childForStatusBarHidden = child }
        if let presented = try link("presented") { controller.presented = presented }
        if let fullScreen = try read("fullScreen", { (value) throws(FieldProblem) in try value.bool() }) {
            controller.fullScreen = fullScreen
        }
        if let captures = try read(
            "modalPresentationCapturesStatusBarAppearance", { (value) throws(FieldProblem) in try value.bool() })
        {
            controller.modalPresentationCapturesStatusBarAppearance = captures
        }
        return controller
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
