@testable import OverlayService

/// The subset of YAML that openapi.yaml keeps to: `key:` and `key: value` lines indented by two
/// spaces per level, `- ` list items, block scalars (`|`, skipped), and one-line flow lists.
struct OpenAPIOutline: Sendable {
    struct Node: Sendable {
        var key: String
        var value: String?
        var children: [Node] = []

        subscript(key: String) -> Node? { children.first { $0.key == key } }

        /// `[a, b, c]` as its items.
        var flowList: [String]? {
            guard let value, value.hasPrefix("["), value.hasSuffix("]") else { return nil }
            return value.dropFirst().dropLast().split(separator: ",").map { $0.trimmingSpaces() }
        }
    }

    struct Operation: Sendable, CustomStringConvertible {
        var path: String
        var method: String
        var statuses: [Int]

        var description: String { "\(method) \(path)" }
    }

    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    var root = Node(key: "")
    var operations: [Operation] = []

    static let methods = ["get", "put", "post", "patch", "delete", "options", "head"]

    init(_ text: String) throws {
        // (indent, node) from the root down to the line last read.
        var stack: [(indent: Int, node: Node)] = [(-1, Node(key: ""))]
        var blockIndent: Int?
        func close(to indent: Int) {
            while stack.count > 1 && stack[stack.count - 1].indent >= indent {
                let done = stack.removeLast().node
                stack[stack.count - 1].node.children.append(done)
            }
        }
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let content = line.drop { $0 == " " }
            let indent = line.count - content.count
            if let block = blockIndent {
                if content.isEmpty || indent > block { continue }
                blockIndent = nil
            }
            if content.isEmpty || content.hasPrefix("#") { continue }
            guard indent % 2 == 0 else { throw SyntaxError(description: "line \(number + 1): odd indentation") }
            close(to: indent)
            var key: String
            var value: String?
            if content.hasPrefix("- ") || content == "-" {
                key = "-"
                value = String(content.dropFirst(2))
            } else if let colon = content.firstIndex(of: ":") {
                key = String(content[..<colon])
                let rest = content[content.index(after: colon)...].trimmingSpaces()
                value = rest.isEmpty ? nil : rest
            } else {
                throw SyntaxError(description: "line \(number + 1): expected `key:` in \(line)")
            }
            if key.count >= 2, key.first == "'", key.last == "'" { key = String(key.dropFirst().dropLast()) }
            if value == "|" || value == ">" {
                blockIndent = indent
                value = nil
            }
            stack.append((indent, Node(key: key, value: value)))
        }
        close(to: 0)
        root = stack[0].node
        for path in root["paths"]?.children ?? [] {
            for method in path.children where OpenAPIOutline.methods.contains(method.key) {
                let statuses = method["responses"]?.children.compactMap { Int($0.key) } ?? []
                operations.append(Operation(path: path.key, method: method.key.uppercased(), statuses: statuses))
            }
        }
    }
}
