/// The samples of a Prometheus text (`GET /metrics`), each under its name and labels as written
/// (`overlayd_queue_length{channel="default"}`): the one reader of metrics every suite uses.
public struct MetricSamples: Sendable {
    /// The text as served.
    public let text: String
    public let values: [String: Double]

    public init(_ text: String) {
        self.text = text
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            // Label values may hold blanks; the value is what follows the last one.
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        self.values = values
    }

    /// `GET /metrics` from the server on `port`, on a connection of its own.
    public static func scrape(port: Int, headers: [(String, String)] = []) throws -> MetricSamples {
        MetricSamples(try RawClient.request("GET", "/metrics", port: port, headers: headers).text)
    }

    /// The sample named exactly so, labels and all.
    public subscript(_ sample: String) -> Double? { values[sample] }

    /// The sample `name{channel="…"}`, as a whole number (a gauge or a counter).
    public func count(_ name: String, channel: String) -> Int? {
        values["\(name){channel=\"\(channel)\"}"].map { Int($0) }
    }

    /// The sum of every sample of the families `names`, whatever their labels.
    public func total(_ names: String...) -> Double {
        values.reduce(0) { sum, sample in
            let name = sample.key.prefix { $0 != "{" }
            return names.contains(String(name)) ? sum + sample.value : sum
        }
    }
}
