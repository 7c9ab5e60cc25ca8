extension Overlay {
    /// The overlay at `time` (seconds of the server's clock), computed from this snapshot alone:
    /// `now`, contentOffset and alpha from the running animation, the label's and the progress
    /// bar's frames that move with them, and the status bar's alpha and offset.
    ///
    /// It computes exactly what the server computes, so until the next discrete change (the
    /// animation's end, a message's end, a new post) it equals `GET /overlay` at that time. It
    /// does not foresee discrete changes: past the animation's end the values stay at its `to`,
    /// and `version`, `phase` and the message stay as they are, until the server sends the next
    /// overlay.
    public func at(_ time: Double) -> Overlay {
        var overlay = self
        overlay.now = ServerClock.rounded(time)
        overlay.statusBar = statusBar?.at(time)
        guard let animation else { return overlay }
        let value = animation.value(at: time)
        switch animation.property {
        case .contentOffset:
            overlay.contentOffset = value
            overlay.alpha = 1
        case .alpha:
            overlay.contentOffset = 0
            overlay.alpha = value
        case .labelOffset:
            overlay.moveLabels(to: value, from: animation.value(at: now), distance: animation.from)
            return overlay
        default:
            return overlay
        }
        let offset = overlay.contentOffset
        guard (presentation ?? .statusBar) == .statusBar else {
            // Every frame of the content is its resting y plus contentOffset: the resting y is
            // this snapshot's less its offset (to within a rounding of the last bit).
            let moved = offset - contentOffset
            overlay.label?.frame.y += moved
            overlay.subtitle?.frame.y += moved
            overlay.accessory?.frame.y += moved
            overlay.pill?.frame.y += moved
            overlay.progressBar?.frame.y += moved
            return overlay
        }
        // The status bar's: written as the server writes them, to the last bit.
        overlay.label?.frame.y = offset
        if let accessory, let height = label?.frame.height {
            overlay.accessory?.frame.y = offset + (height - accessory.frame.height) / 2
        }
        if var bar = overlay.progressBar {
            bar.frame.y = progressBarY(bar, contentOffset: offset)
            overlay.progressBar = bar
        }
        return overlay
    }

    /// A rise: only the labels move, the incoming one by the offset from its resting y and the
    /// outgoing one Hc (`distance`) above it.
    private mutating func moveLabels(to offset: Double, from before: Double, distance: Double) {
        guard (presentation ?? .statusBar) == .statusBar else {
            label?.frame.y += offset - before
            outgoing?.frame.y += offset - before
            return
        }
        // The status bar's resting label is at 0: written as the server writes them, to the last bit.
        label?.frame.y = contentOffset + offset
        outgoing?.frame.y = (-distance + contentOffset) + offset
    }

    /// Whether anything moves at `time`: the overlay's or the status bar's animation runs.
    public func isAnimating(at time: Double) -> Bool {
        animation?.isRunning(at: time) == true || statusBar?.animation?.isRunning(at: time) == true
    }

    /// The bar's y for `contentOffset`, written as the server writes it (same operations, same
    /// order) so that the two agree to the last bit.
    private func progressBarY(_ bar: ProgressBar, contentOffset: Double) -> Double {
        guard let height = label?.frame.height else { return bar.frame.y + (contentOffset - self.contentOffset) }
        let barHeight = bar.frame.height
        switch bar.position {
        // The server's resting y (the bar in a content area from 0) plus the offset.
        case .bottom: return (height - barHeight) + contentOffset
        case .top: return contentOffset
        case .center: return (height - barHeight) / 2 + contentOffset
        default: return bar.frame.y + (contentOffset - self.contentOffset)
        }
    }
}
