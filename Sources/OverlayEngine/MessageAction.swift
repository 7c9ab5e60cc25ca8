/// A button a reader may draw beside a message (docs/MODEL.md §14): what it says, and what a tap
/// on it opens. A tap on it is reported by its `id` (`POST /overlay/tap`).
public struct MessageAction: Hashable, Sendable {
    /// 1–32 of `A-Z a-z 0-9 _ -`, unique within the message.
    public var id: String
    /// 1–40 characters once trimmed.
    public var label: String
    /// What a tap opens, checked as `click` is; nil: the button only reports its tap.
    public var url: String?

    public init(id: String, label: String, url: String? = nil) {
        self.id = id
        self.label = label
        self.url = url
    }

    /// The bytes of UTF-8 its strings hold, for `Message.textBytes`.
    var textBytes: Int { id.utf8.count + label.utf8.count + (url?.utf8.count ?? 0) }
}
