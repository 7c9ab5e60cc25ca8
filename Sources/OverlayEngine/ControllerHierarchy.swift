/// The app's view controllers as far as the status bar cares: who is the root, who forwards the
/// status bar's appearance to which child, and who presents whom (`PUT /statusbar/controllers`).
///
/// Only `validated(root:controllers:)` makes one, so every hierarchy held is free of unknown names,
/// duplicates and cycles, and resolution always ends.
public struct ControllerHierarchy: Hashable, Sendable {
    /// One view controller and the status-bar answers it gives.
    public struct Controller: Hashable, Sendable {
        public var name: String
        public var preferredStatusBarStyle: StatusBarStyle
        public var prefersStatusBarHidden: Bool
        /// The animation a change of hidden uses when this controller decides hidden.
        public var preferredStatusBarUpdateAnimation: StatusBarAnimation
        /// The child that decides the style in this controller's place (a container's visible child).
        public var childForStatusBarStyle: String?
        /// The child that decides hidden in this controller's place.
        public var childForStatusBarHidden: String?
        /// The controller this one presents modally.
        public var presented: String?
        /// Whether this controller, when presented, covers the whole screen.
        public var fullScreen: Bool
        /// Whether this controller, presented but not full screen, still takes over the status bar.
        public var modalPresentationCapturesStatusBarAppearance: Bool

        public init(
            name: String,
            preferredStatusBarStyle: StatusBarStyle = .default,
            prefersStatusBarHidden: Bool = false,
            preferredStatusBarUpdateAnimation: StatusBarAnimation = .fade,
            childForStatusBarStyle: String? = nil,
            childForStatusBarHidden: String? = nil,
            presented: String? = nil,
            fullScreen: Bool = true,
            modalPresentationCapturesStatusBarAppearance: Bool = false
        ) {
            self.name = name
            self.preferredStatusBarStyle = preferredStatusBarStyle
            self.prefersStatusBarHidden = prefersStatusBarHidden
            self.preferredStatusBarUpdateAnimation = preferredStatusBarUpdateAnimation
            self.childForStatusBarStyle = childForStatusBarStyle
            self.childForStatusBarHidden = childForStatusBarHidden
            self.presented = presented
            self.fullScreen = fullScreen
            self.modalPresentationCapturesStatusBarAppearance = modalPresentationCapturesStatusBarAppearance
        }

        /// Whether resolution goes on to this controller when another presents it.
        var takesOverWhenPresented: Bool { fullScreen || modalPresentationCapturesStatusBarAppearance }
    }

    /// What resolution found for one attribute: the value and the controller that decided it.
    public struct Decision<Value: Hashable & Sendable>: Hashable, Sendable {
        public var value: Value
        public var controller: String
        /// The deciding controller's `preferredStatusBarUpdateAnimation`.
        public var animation: StatusBarAnimation
    }

    public static let maximumControllers = 64
    public static let maximumNameLength = Name.maximumLength
    /// `styleFrom` and `hiddenFrom` say "application" when no controller decides, so no controller
    /// may take that name.
    public static let reservedName = "application"

    public let root: String
    /// In the order they were sent.
    public let controllers: [Controller]
    private let positions: [String: Int]

    private init(root: String, controllers: [Controller], positions: [String: Int]) {
        self.root = root
        self.controllers = controllers
        self.positions = positions
    }

    /// The controller called `name`, if there is one.
    public func controller(named name: String) -> Controller? {
        positions[name].map { controllers[$0] }
    }

    // MARK: - Resolution

    /// The style: from the root, into a presented controller that is full screen or captures the
    /// appearance, else into `childForStatusBarStyle`, until neither applies.
    public var style: Decision<StatusBarStyle> {
        let decider = decider(following: \.childForStatusBarStyle)
        return Decision(
            value: decider.preferredStatusBarStyle, controller: decider.name,
            animation: decider.preferredStatusBarUpdateAnimation)
    }

    /// Hidden, by the same walk through `childForStatusBarHidden`; `animation` is what the change uses.
    public var hidden: Decision<Bool> {
        let decider = decider(following: \.childForStatusBarHidden)
        return Decision(
            value: decider.prefersStatusBarHidden, controller: decider.name,
            animation: decider.preferredStatusBarUpdateAnimation)
    }

    private func decider(following child: KeyPath<Controller, String?>) -> Controller {
        var current = controllers[positions[root]!]
        // A valid hierarchy has no cycle, so a walk visits each controller at most once; the bound
        // only makes that visible.
        for _ in controllers.indices {
            if let name = current.presented, let presented = controller(named: name), presented.takesOverWhenPresented {
                current = presented
            } else if let name = current[keyPath: child], let next = controller(named: name) {
                current = next
            } else {
                break
            }
        }
        return current
    }

    // MARK: - Validation

    /// The hierarchy, or the first rule it breaks, naming the field at fault
    /// (`controllers[3].childForStatusBarStyle`).
    public static func validated(
        root: String, controllers: [Controller]
    ) -> Result<ControllerHierarchy, StatusBarError> {
        if controllers.count > maximumControllers {
            return .failure(invalid("controllers", "must hold at most \(maximumControllers) controllers"))
        }
        if controllers.isEmpty {
            return .failure(invalid("controllers", "must hold at least the root controller"))
        }
        var positions: [String: Int] = [:]
        for (index, controller) in controllers.enumerated() {
            let field = "controllers[\(index)].name"
            if let reason = nameProblem(controller.name) { return .failure(invalid(field, reason)) }
            if let first = positions[controller.name] {
                return .failure(invalid(field, "repeats the name of controllers[\(first)]: \(controller.name)"))
            }
            positions[controller.name] = index
        }
        if let reason = nameProblem(root) { return .failure(invalid("root", reason)) }
        guard positions[root] != nil else {
            return .failure(invalid("root", "names no controller in controllers: \(root)"))
        }
        var presenters: [String: Int] = [:]
        for (index, controller) in controllers.enumerated() {
            for (label, reference) in links(of: controller) {
                guard let name = reference else { continue }
                let field = "controllers[\(index)].\(label)"
                guard positions[name] != nil else {
                    return .failure(invalid(field, "names no controller in controllers: \(name)"))
                }
                guard label == "presented" else { continue }
                if name == root {
                    return .failure(invalid(field, "names the root, which is on screen without being presented"))
                }
                if let first = presenters[name] {
                    return .failure(invalid(field, "presents \(name), which controllers[\(first)] already presents"))
                }
                presenters[name] = index
            }
        }
        let hierarchy = ControllerHierarchy(root: root, controllers: controllers, positions: positions)
        if let cycle = hierarchy.firstCycle() { return .failure(cycle) }
        return .success(hierarchy)
    }

    private static func invalid(_ field: String, _ reason: String) -> StatusBarError {
        .invalidField(field: field, reason: reason)
    }

    /// What is wrong with a controller name, if anything: 1–64 of `A-Z a-z 0-9 . _ -` (a class name
    /// or a label fits), and not the word that stands for "no controller".
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name.utf8.count > maximumNameLength {
            return "must be 1 to \(maximumNameLength) characters"
        }
        if !Name.hasNameCharacters(name) { return "must be letters, digits, '.', '_' or '-'" }
        if name == reservedName { return "must not be \"\(reservedName)\": it means that no controller decides" }
        return nil
    }

    /// The links a controller has to others, in the order a walk follows them.
    private static func links(of controller: Controller) -> [(label: String, name: String?)] {
        [
            ("presented", controller.presented),
            ("childForStatusBarStyle", controller.childForStatusBarStyle),
            ("childForStatusBarHidden", controller.childForStatusBarHidden),
        ]
    }

    /// The first link that closes a cycle, through children or presentations alike: a controller
    /// cannot be its own ancestor however the two kinds of link mix. Depth first, in the order the
    /// controllers were sent, so the same body always names the same field.
    private func firstCycle() -> StatusBarError? {
        enum Mark { case unseen, onPath, done }
        var marks = [Mark](repeating: .unseen, count: controllers.count)
        var path: [Int] = []

        func visit(_ index: Int) -> StatusBarError? {
            marks[index] = .onPath
            path.append(index)
            for (label, reference) in ControllerHierarchy.links(of: controllers[index]) {
                guard let name = reference, let next = positions[name] else { continue }
                switch marks[next] {
                case .onPath:
                    let loop = path.drop { $0 != next }.map { controllers[$0].name } + [name]
                    return .invalidField(
                        field: "controllers[\(index)].\(label)",
                        reason: "closes a cycle: \(loop.joined(separator: " → "))")
                case .unseen:
                    if let cycle = visit(next) { return cycle }
                case .done:
                    continue
                }
            }
            path.removeLast()
            marks[index] = .done
            return nil
        }

        for index in controllers.indices where marks[index] == .unseen {
            if let cycle = visit(index) { return cycle }
        }
        return nil
    }
}
