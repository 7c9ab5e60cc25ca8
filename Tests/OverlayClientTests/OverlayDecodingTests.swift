import Foundation
import OverlayClient
import Testing

/// Decoding the overlay as the server writes it, and as a newer server may write it.
@Suite("Overlay decoding")
struct OverlayDecodingTests {
    /// The overlay of the README and the API description, member for member.
    static let example = """
        {
          "version": 7, "now": 1.125, "phase": "showing",
          "orientation": "portrait", "rotation": 0, "device": "ipad",
          "frame": {"x": 0, "y": 0, "width": 768, "height": 20},
          "contentOffset": -10, "alpha": 1,
          "message": {"id": 3, "kind": "sending", "text": "Sending…", "progress": null, "state": "showing"},
          "label": {"text": "Sending…", "frame": {"x": 30, "y": -10, "width": 708, "height": 20}},
          "style": {"background": "#1C1C1E", "foreground": "#FFFFFF"},
          "activity": true, "progressBar": null, "queued": 2,
          "animation": {"property": "contentOffset", "from": -20, "to": 0, "start": 1, "duration": 0.25}
        }
        """

    static func decode(_ json: String) throws -> Overlay {
        try JSONDecoder().decode(Overlay.self, from: Data(json.utf8))
    }

    @Test func example() async throws {
        let overlay = try Self.decode(Self.example)
        #expect(overlay.version == 7)
        #expect(overlay.now == 1.125)
        #expect(overlay.phase == .showing)
        #expect(overlay.orientation == .portrait)
        #expect(overlay.rotation == 0)
        #expect(overlay.device == "ipad")
        #expect(overlay.frame == Rect(x: 0, y: 0, width: 768, height: 20))
        #expect(overlay.contentOffset == -10)
        #expect(overlay.alpha == 1)
        #expect(overlay.message == Message(id: 3, kind: .sending, text: "Sending…", state: .showing))
        #expect(overlay.label == Overlay.Label(text: "Sending…", frame: Rect(x: 30, y: -10, width: 708, height: 20)))
        #expect(overlay.style == Overlay.Style(background: "#1C1C1E", foreground: "#FFFFFF"))
        #expect(overlay.activity)
        #expect(overlay.progressBar == nil)
        #expect(overlay.queued == 2)
        #expect(overlay.animation == Animation(property: .contentOffset, from: -20, to: 0, start: 1, duration: 0.25))
        #expect(overlay.statusBar == nil)
        #expect(overlay.held == nil)
        #expect(overlay.scheduled == nil)
    }

    /// `scheduled`, the messages waiting for their time, from servers that schedule them.
    @Test func scheduledCount() async throws {
        let json = Self.example.replacingOccurrences(of: "\"queued\": 2,", with: "\"queued\": 2, \"scheduled\": 5,")
        #expect(try Self.decode(json).scheduled == 5)
        let wrong = Self.example.replacingOccurrences(
            of: "\"queued\": 2,", with: "\"queued\": 2, \"scheduled\": \"5\",")
        #expect(throws: DecodingError.self) { try Self.decode(wrong) }
    }

    /// Members and names this client does not know yet decode instead of failing.
    @Test func newerServer() async throws {
        var json = Self.example.replacingOccurrences(of: "\"phase\": \"showing\"", with: "\"phase\": \"bouncing\"")
        json = json.replacingOccurrences(of: "\"kind\": \"sending\"", with: "\"kind\": \"warning\"")
        json = json.replacingOccurrences(
            of: "\"queued\": 2,", with: "\"queued\": 2, \"haptics\": {\"pattern\": [1, 2]},")
        json = json.replacingOccurrences(of: "\"duration\": 0.25}", with: "\"duration\": 0.25, \"curve\": \"spring\"}")
        let overlay = try Self.decode(json)
        #expect(overlay.phase == "bouncing")
        #expect(overlay.phase != .showing)
        #expect(overlay.message?.kind.rawValue == "warning")
        #expect(overlay.animation?.curve == "spring")
        // An unknown curve is drawn linearly: halfway is half the way.
        #expect(overlay.animation?.value(at: 1.125) == -10)
    }

    /// The status bar and `held`, as servers that model the status bar send them.
    @Test func statusBarAndHeld() async throws {
        let json = Self.example.replacingOccurrences(
            of: "\"queued\": 2,",
            with: """
                "queued": 2, "held": true,
                "statusBar": {"style": "lightContent", "hidden": true, "alpha": 0.5, "offset": 0,
                  "frame": {"x": 0, "y": 0, "width": 768, "height": 20},
                  "animation": {"property": "alpha", "from": 1, "to": 0, "start": 1, "duration": 0.25},
                  "styleFrom": "application", "hiddenFrom": "player"},
                """)
        let overlay = try Self.decode(json)
        #expect(overlay.held == true)
        let bar = try #require(overlay.statusBar)
        #expect(bar.style == .lightContent)
        #expect(bar.hidden)
        #expect(bar.alpha == 0.5)
        #expect(bar.frame.width == 768)
        #expect(bar.animation?.property == .alpha)
        #expect(bar.styleFrom == "application")
        #expect(bar.hiddenFrom == "player")
    }

    /// A member the overlay needs that is missing, or of the wrong type, fails the decoding.
    @Test(arguments: ["\"version\": 7,", "\"phase\": \"showing\","])
    func missingMember(member: String) async throws {
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.example.replacingOccurrences(of: member, with: ""))
        }
    }

    @Test func wrongType() async throws {
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.example.replacingOccurrences(of: "\"alpha\": 1", with: "\"alpha\": \"1\""))
        }
    }

    /// Encoding and decoding again gives the same overlay.
    @Test func roundTrip() async throws {
        let overlay = try Self.decode(Self.example)
        let again = try JSONDecoder().decode(Overlay.self, from: JSONEncoder().encode(overlay))
        #expect(again == overlay)
    }
}
