// What one FontMeasurer.width(of:size:) costs on typical overlay texts: built by bench/text-measure
// against the release TextMeasure module, as a client of its public API.
import TextMeasure

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
let widthsPerRound = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let path = arguments.count > 3 ? arguments[3] : FontMeasurer.defaultFontPath

// Short texts like the overlay's messages, some with kerning, an accent, a missing glyph.
let texts = [
    "Sending\u{2026}", "Sent", "Download failed", "Hello, World", "Uploading 3 files",
    "Connection lost \u{2014} retrying",
    "AVATAR", "Caf\u{e9} ouvert", "Done \u{2705}", "12:34",
]

let measurer: FontMeasurer
do {
    measurer = try FontMeasurer(path: path)
} catch {
    print("text-measure: \(error)")
    exit(1)
}

var sink = 0.0
// Warm-up: HarfBuzz builds its shape plan and caches on first use.
for text in texts { sink += measurer.width(of: text, size: 13) }

let clock = ContinuousClock()
var perWidth: [Double] = []
for _ in 0..<rounds {
    let start = clock.now
    for index in 0..<widthsPerRound { sink += measurer.width(of: texts[index % texts.count], size: 13) }
    let elapsed = clock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    perWidth.append(nanoseconds / Double(widthsPerRound))
}
perWidth.sort()
let median = perWidth[perWidth.count / 2]
let averageLength = Double(texts.map(\.count).reduce(0, +)) / Double(texts.count)
print(
    "text-measure: \(widthsPerRound) widths × \(rounds) rounds, \(texts.count) texts of \(averageLength) characters"
        + " on average, one thread")
print(
    "ns per width: median \(Int(median.rounded())), best \(Int(perWidth[0].rounded())), worst \(Int(perWidth.last!.rounded()))"
)
// Keeps the loop's result alive so the optimizer cannot drop it.
if sink < 0 { print(sink) }
