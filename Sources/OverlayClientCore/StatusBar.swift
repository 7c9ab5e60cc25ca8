/// The app's own status bar, the bar the overlay covers: its style, whether it is hidden, and
/// where its hide or show animation is.
public struct StatusBar: Codable, Hashable, Sendable {
    /// `UIStatusBarStyle`: `default` draws as `darkContent`.
    public struct Style: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let `default`: Style = "default"
        public static let lightContent: Style = "lightContent"
        public static let darkContent: Style = "darkContent"
    }

    /// `UIStatusBarAnimation`: how a change of `hidden` is animated.
    public struct UpdateAnimation: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let fade: UpdateAnimation = "fade"
        public static let slide: UpdateAnimation = "slide"
        public static let none: UpdateAnimation = "none"
    }

    public var style: Style
    public var hidden: Bool
    public var alpha: Double
    /// 0 when shown, −h when slid out.
    public var offset: Double
    /// The bar's frame: the overlay's frame for the current orientation and device.
    public var frame: Rect
    /// The hide or show that runs, if one does.
    public var animation: Animation?
    /// Who decided the style: `application`, or the deciding view controller's name.
    public var styleFrom: String?
    /// Who decided `hidden`: `application`, or the deciding view controller's name.
    public var hiddenFrom: String?

    public init(
        style: Style, hidden: Bool, alpha: Double, offset: Double, frame: Rect, animation: Animation? = nil,
        styleFrom: String? = nil, hiddenFrom: String? = nil
    ) {
        self.style = style
        self.hidden = hidden
        self.alpha = alpha
        self.offset = offset
        self.frame = frame
        self.animation = animation
        self.styleFrom = styleFrom
        self.hiddenFrom = hiddenFrom
    }

    /// The status bar at `time`, from its animation: a fade moves `alpha` (offset 0), a slide
    /// moves `offset` (alpha 1 while it runs; a bar that has slid out is hidden, alpha 0, as the
    /// server has it). Without an animation nothing moves.
    public func at(_ time: Double) -> StatusBar {
        guard let animation else { return self }
        var bar = self
        let value = animation.value(at: time)
        switch animation.property {
        case .alpha:
            bar.alpha = value
            bar.offset = 0
        case .offset, .contentOffset:
            bar.offset = value
            bar.alpha = hidden && !animation.isRunning(at: time) ? 0 : 1
        default:
            break
        }
        return bar
    }
}
