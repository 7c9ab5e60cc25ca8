/// Message bodies that more than one suite posts.
enum SampleMessage {
    /// A failed build with a click and two actions, one with a URL: what a tap chooses among.
    static let withActions = #"""
        {"text": "Build 42 failed", "kind": "failed", "click": "https://ci.example/42",
         "actions": [{"id": "retry", "label": "Retry", "url": "https://ci.example/42/retry"}, {"id": "mute", "label": "Mute"}]}
        """#
}
