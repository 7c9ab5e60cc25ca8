/// The fields of a POST or PATCH; absent ones are left out of the JSON.
///
/// `package`: `overlayd post` sends its `--delay`, `--at`, `--expires` and `--priority` as the
/// text it was given, so that the server reads the units and names (and says why not).
package struct MessageFields: Encodable, Sendable, Hashable {
    /// A field the server reads either as a number or as a text (`"5m"`, `"high"`).
    package enum Value: Encodable, Sendable, Hashable {
        case number(Double)
        case integer(Int)
        case text(String)

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .integer(let integer): try container.encode(integer)
            case .text(let text): try container.encode(text)
            }
        }
    }

    package var text: String?
    package var kind: String?
    package var subtitle: String?
    package var icon: String?
    package var progress: Double?
    package var duration: Double?
    package var immediate: Bool?
    package var key: String?
    package var delay: Value?
    package var at: Value?
    package var expires: Value?
    package var priority: Value?
    package var click: String?
    package var actions: [Message.Action]?
    package var accessibilityLabel: String?

    package init(
        text: String? = nil, kind: String? = nil, subtitle: String? = nil, icon: String? = nil,
        progress: Double? = nil, duration: Double? = nil, immediate: Bool? = nil, key: String? = nil,
        delay: Value? = nil, at: Value? = nil, expires: Value? = nil, priority: Value? = nil, click: String? = nil,
        actions: [Message.Action]? = nil, accessibilityLabel: String? = nil
    ) {
        self.text = text
        self.kind = kind
        self.subtitle = subtitle
        self.icon = icon
        self.progress = progress
        self.duration = duration
        self.immediate = immediate
        self.key = key
        self.delay = delay
        self.at = at
        self.expires = expires
        self.priority = priority
        self.click = click
        self.actions = actions
        self.accessibilityLabel = accessibilityLabel
    }

    /// The typed schedule fields of `post` and `patch`, as the server reads them.
    mutating func schedule(delay: Double?, at: ScheduledTime?, expires: Double?, priority: Priority?) {
        self.delay = delay.map(Value.number)
        self.at = at.map { .number($0.seconds) }
        self.expires = expires.map(Value.number)
        self.priority = priority.map { .integer($0.rawValue) }
    }
}
