import Foundation
import OverlayClient
import Testing

// `Overlay.at(_:)` checked against the server itself, for the interpolation and the presentation
// cross-checks.

/// `snapshot.at(_:)` against `GET /overlay` with the server's manual clock moved to each of 40
/// instants of the snapshot's animation; answers how many instants it compared.
func crossCheck(
    _ snapshot: Overlay, client: OverlayClient, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Int {
    let animation = try #require(snapshot.animation, sourceLocation: sourceLocation)
    var seen = Set<Double>()
    var compared = 0
    for instant in CrossCheck.instants(animation, seed: seed) {
        _ = try await client.setClock(to: instant)
        let actual = try await client.overlay()
        let expected = snapshot.at(instant)
        let differences = try CrossCheck.differences(expected, actual)
        #expect(differences.isEmpty, "at \(instant): \(differences)", sourceLocation: sourceLocation)
        switch animation.property {
        case .alpha: seen.insert(actual.alpha)
        case .labelOffset: seen.insert(actual.label?.frame.y ?? 0)
        default: seen.insert(actual.contentOffset)
        }
        compared += 1
    }
    // The instants were inside the animation: the value moved at nearly every one.
    #expect(seen.count >= 35, "only \(seen.count) distinct values", sourceLocation: sourceLocation)
    return compared
}

enum CrossCheck {
    /// 40 instants in [start, start + duration): the start itself, then irregular ones (a fixed
    /// pseudo-random sequence, so a failure repeats), in order.
    static func instants(_ animation: Animation, seed: UInt64) -> [Double] {
        var state = seed
        var fractions: [Double] = [0]
        while fractions.count < 40 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            fractions.append(Double(state >> 11) / Double(1 << 53))
        }
        return fractions.sorted().map { animation.start + animation.duration * $0 }
    }

    /// Every member of the two overlays: numbers within 1e-9, everything else equal.
    static func differences(_ expected: Overlay, _ actual: Overlay) throws -> [String] {
        let encoder = JSONEncoder()
        let left = try JSONSerialization.jsonObject(with: encoder.encode(expected))
        let right = try JSONSerialization.jsonObject(with: encoder.encode(actual))
        var found: [String] = []
        compare(left, right, path: "", into: &found)
        return found
    }

    private static func compare(_ left: Any, _ right: Any, path: String, into found: inout [String]) {
        if let left = left as? [String: Any], let right = right as? [String: Any] {
            for key in Set(left.keys).union(right.keys) {
                guard let l = left[key], let r = right[key] else {
                    found.append("\(path).\(key) in only one")
                    continue
                }
                compare(l, r, path: "\(path).\(key)", into: &found)
            }
        } else if let left = left as? NSNumber, let right = right as? NSNumber {
            if abs(left.doubleValue - right.doubleValue) > 1e-9 { found.append("\(path): \(left) ≠ \(right)") }
        } else if "\(left)" != "\(right)" {
            found.append("\(path): \(left) ≠ \(right)")
        }
    }
}
