/// Where a presentation puts the overlay's parts, in the bar's own space (length L by the
/// window's height Hw), for a content offset and the texts' measured widths. Pure: the widths
/// come in as numbers.
public struct PresentationLayout: Hashable, Sendable {
    /// The window's height Hw: the content moves from −Hw (hidden) to 0.
    public var windowHeight: Double
    public var label: Rect
    /// Only `fullWidth` and `pill` draw a subtitle.
    public var subtitle: Rect?
    public var accessory: Rect?
    /// The capsule, in `pill` only.
    public var pill: Rect?
    public var progressBar: Rect?

    /// What a layout is computed from.
    public struct Input: Hashable, Sendable {
        public var presentation: Presentation
        public var device: DeviceProfile
        public var orientation: Orientation
        public var inset: Double
        public var contentOffset: Double
        public var titleWidth: Double
        /// The subtitle's measured width; nil without a subtitle.
        public var subtitleWidth: Double?
        public var hasAccessory: Bool
        public var progress: Double?
        public var progressBarHeight: Double = 2
        public var progressBarPosition: ProgressBarPosition = .bottom
        public var progressBarCapWidth: Double = 0
        public var pillHeight: Double = PresentationMetrics.pillHeight

        public init(
            presentation: Presentation, device: DeviceProfile, orientation: Orientation, inset: Double,
            contentOffset: Double, titleWidth: Double = 0, subtitleWidth: Double? = nil, hasAccessory: Bool = false,
            progress: Double? = nil
        ) {
            self.presentation = presentation
            self.device = device
            self.orientation = orientation
            self.inset = inset
            self.contentOffset = contentOffset
            self.titleWidth = titleWidth
            self.subtitleWidth = subtitleWidth
            self.hasAccessory = hasAccessory
            self.progress = progress
        }
    }

    /// The window's height of `presentation` on `device` in `orientation`: it does not depend on
    /// the text, so it is known before a message is.
    public static func windowHeight(
        _ presentation: Presentation, device: DeviceProfile, orientation: Orientation,
        pillHeight: Double = PresentationMetrics.pillHeight
    ) -> Double {
        let safeArea = device.topSafeArea(in: orientation)
        switch presentation.resolved(on: device) {
        case .statusBar, .auto: return device.statusBarHeight
        case .fullWidth: return safeArea + PresentationMetrics.fullWidthContentHeight(safeArea: safeArea)
        case .pill: return safeArea + PresentationMetrics.pillOffset(safeArea: safeArea) + pillHeight
        }
    }

    /// The height Hc of the content area a label rises through: h in `statusBar`, c in
    /// `fullWidth`, P in `pill`, whatever the label's own height.
    public static func contentHeight(
        _ presentation: Presentation, device: DeviceProfile, orientation: Orientation,
        pillHeight: Double = PresentationMetrics.pillHeight
    ) -> Double {
        switch presentation.resolved(on: device) {
        case .statusBar, .auto: device.statusBarHeight
        case .fullWidth: PresentationMetrics.fullWidthContentHeight(safeArea: device.topSafeArea(in: orientation))
        case .pill: pillHeight
        }
    }

    /// The layout at `input.contentOffset`: the layout at rest (offset 0) with every y moved by
    /// the offset, so that a reader of the resting frames draws the same numbers.
    public init(_ input: Input) {
        let length = input.orientation.barLength(on: input.device)
        let safeArea = input.device.topSafeArea(in: input.orientation)
        if input.presentation.resolved(on: input.device) == .pill {
            self.init(pill: input, length: length, safeArea: safeArea)
        } else {
            self.init(bar: input, length: length, safeArea: safeArea)
        }
        if input.contentOffset != 0 { self = shifted(by: input.contentOffset) }
    }

    /// This layout with the content moved down by `offset` (up when negative): every frame's y
    /// is its resting y plus the offset.
    public func shifted(by offset: Double) -> PresentationLayout {
        func move(_ rect: Rect?) -> Rect? {
            rect.map { Rect(x: $0.x, y: $0.y + offset, width: $0.width, height: $0.height) }
        }
        var moved = self
        moved.label = move(label)!
        moved.subtitle = move(subtitle)
        moved.accessory = move(accessory)
        moved.pill = move(pill)
        moved.progressBar = move(progressBar)
        return moved
    }

    /// `statusBar` and `fullWidth`: the label across the bar, the accessory in the left inset.
    private init(bar input: Input, length: Double, safeArea: Double) {
        windowHeight = Self.windowHeight(
            input.presentation, device: input.device, orientation: input.orientation, pillHeight: input.pillHeight)
        subtitle = nil
        pill = nil
        if input.presentation.resolved(on: input.device) == .fullWidth {
            let content = PresentationMetrics.fullWidthContentHeight(safeArea: safeArea)
            let top = safeArea
            label = Rect(x: input.inset, y: top, width: length - 2 * input.inset, height: content)
            if input.subtitleWidth != nil {
                label.y = top + (content - 31) / 2
                label.height = 16
                subtitle = Rect(x: label.x, y: label.y + 17, width: label.width, height: 14)
            }
            progressBar = input.progress.map { Self.bar(input, length: length, top: top, height: content, $0) }
        } else {
            let height = input.device.statusBarHeight
            label = Rect(x: input.inset, y: 0, width: length - 2 * input.inset, height: height)
            progressBar = input.progress.map { Self.bar(input, length: length, top: 0, height: height, $0) }
        }
        let size = PresentationMetrics.accessorySize
        accessory =
            input.hasAccessory
            ? Rect(
                x: input.inset - PresentationMetrics.accessorySpace, y: label.y + (label.height - size) / 2,
                width: size, height: size) : nil
    }

    private init(pill input: Input, length: Double, safeArea: Double) {
        let metrics = PresentationMetrics.self
        let height = input.pillHeight
        let top = safeArea + metrics.pillOffset(safeArea: safeArea)
        windowHeight = top + height
        let widest = max(input.titleWidth, input.subtitleWidth ?? 0)
        let text = widest + (input.hasAccessory ? metrics.accessorySpace : 0)
        let minimum = max(metrics.pillMinimumWidth, height)
        let width = max(minimum, min(length - 2 * metrics.pillMargin, text + 2 * metrics.pillPadding)).rounded()
        let x = max(metrics.pillMargin, (length - width) / 2).rounded()
        let y = top
        pill = Rect(x: x, y: y, width: width, height: height)
        let group = min(text, width - 2 * metrics.pillPadding)
        if input.hasAccessory {
            let start = x + (width - group) / 2
            accessory = Rect(
                x: start, y: y + (height - metrics.accessorySize) / 2, width: metrics.accessorySize,
                height: metrics.accessorySize)
            // g − 21, written as min(widest, w − 2·padding − 21): the same length without adding
            // 21 and taking it away again, which can lose the last bit and call a text that the
            // pill was sized for truncated.
            let labelWidth = min(widest, width - 2 * metrics.pillPadding - metrics.accessorySpace)
            label = Rect(x: start + metrics.accessorySpace, y: y, width: labelWidth, height: height)
        } else {
            accessory = nil
            label = Rect(x: x + metrics.pillPadding, y: y, width: width - 2 * metrics.pillPadding, height: height)
        }
        if input.subtitleWidth != nil {
            label.y = y + 9.5
            label.height = 16
            subtitle = Rect(x: label.x, y: y + 26.5, width: label.width, height: 14)
        } else {
            subtitle = nil
        }
        // Inside the capsule: 20 from its ends, 5 from its edge at the bottom or the top.
        progressBar = input.progress.map { progress in
            Self.progressFrame(
                x: x + 20, track: width - 40, top: y + 5, height: height - 10, progress: progress,
                barHeight: input.progressBarHeight, position: input.progressBarPosition,
                capWidth: input.progressBarCapWidth)
        }
    }

    /// §1's bar over a content area from `top`, `height` high: at its bottom, top or centre, the
    /// fill L × progress, never less than two caps while progress > 0, never more than L.
    private static func bar(_ input: Input, length: Double, top: Double, height: Double, _ progress: Double) -> Rect {
        progressFrame(
            x: 0, track: length, top: top, height: height, progress: progress, barHeight: input.progressBarHeight,
            position: input.progressBarPosition, capWidth: input.progressBarCapWidth)
    }

    /// A bar `barHeight` high at the bottom, top or centre of the band from `top`, `height` high;
    /// its fill `track` × progress, never less than two caps while progress > 0 (a stretchable
    /// image cannot be narrower than its caps), never more than the track.
    public static func progressFrame(
        x: Double, track: Double, top: Double, height: Double, progress: Double, barHeight: Double,
        position: ProgressBarPosition, capWidth: Double
    ) -> Rect {
        let y: Double
        switch position {
        case .bottom: y = top + height - barHeight
        case .top: y = top
        case .center: y = top + (height - barHeight) / 2
        }
        var fill = track * progress
        if progress > 0 { fill = min(track, max(fill, 2 * capWidth)) }
        return Rect(x: x, y: y, width: fill, height: barHeight)
    }
}
