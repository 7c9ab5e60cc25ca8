import OverlayClient

extension Overlay {
    /// An overlay on an ipad in portrait, message shown, with `animation` and a progress bar.
    static func sample(
        animation: Animation?, contentOffset: Double = 0, alpha: Double = 1,
        position: Overlay.ProgressBar.Position = .bottom
    ) -> Overlay {
        let barY: Double
        switch position {
        case .top: barY = contentOffset
        case .center: barY = contentOffset + 9
        default: barY = contentOffset + 18
        }
        return Overlay(
            version: 4, now: animation?.start ?? 0, phase: .showing, orientation: .portrait, rotation: 0,
            device: "ipad", frame: Rect(x: 0, y: 0, width: 768, height: 20), contentOffset: contentOffset,
            alpha: alpha, message: Message(id: 1, kind: .progress, text: "Downloading", progress: 0.5, state: .showing),
            label: Overlay.Label(text: "Downloading", frame: Rect(x: 30, y: contentOffset, width: 708, height: 20)),
            style: Overlay.Style(background: "#007AFF", foreground: "#FFFFFF"),
            progressBar: Overlay.ProgressBar(
                progress: 0.5, position: position, frame: Rect(x: 0, y: barY, width: 384, height: 2)),
            animation: animation)
    }
}
