/// A command line as `post`, `watch` and `token` take it: options with a value (`--kind sent`,
/// `--kind=sent`), switches (`--immediate`), and operands; `--` ends the options and a lone `-`
/// is an operand (standard input). An option is given once, unless it is `repeatable`
/// (`--grant` of `token add`), whose values are kept in order.
struct Arguments: Hashable, Sendable {
    var operands: [String] = []
    var values: [String: String] = [:]
    var repeated: [String: [String]] = [:]
    var switches: Set<String> = []

    init(
        _ arguments: [String], options: Set<String>, repeatable: Set<String> = [], switches known: Set<String>
    ) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                switches.insert("--help")
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if known.contains(name) {
                guard parts.count == 1 else { throw UsageError("\(name) takes no value") }
                switches.insert(name)
            } else if options.contains(name) || repeatable.contains(name) {
                let value: String
                if parts.count == 2 {
                    value = String(parts[1])
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                if repeatable.contains(name) {
                    repeated[name, default: []].append(value)
                } else {
                    guard values[name] == nil else { throw UsageError("\(name) is given twice") }
                    values[name] = value
                }
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// Every value of a repeatable option, in the order given.
    func all(_ name: String) -> [String] { repeated[name] ?? [] }

    func has(_ name: String) -> Bool { switches.contains(name) }

    /// The option as a number, if given.
    func number(_ name: String) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw UsageError("\(name) must be a number, not \"\(text)\"")
        }
        return number
    }
}

/// A command line that cannot be run as written.
struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
