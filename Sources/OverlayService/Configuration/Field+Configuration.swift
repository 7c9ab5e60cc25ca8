import OverlayEngine
import OverlayPublisher

// The kinds of field only the configuration has: values within bounds, durations, colours, and
// the settings that may be off.

extension Field {
    /// The field, its value turned into another type once read (seconds into an `Interval`).
    func map<Other>(_ transform: @escaping @Sendable (Value) -> Other) -> Field<Other> {
        let read = self.read
        return Field<Other>(name) { (value) throws(FieldProblem) in transform(try read(value)) }
    }
}

extension Field where Value == Int {
    func within(_ range: ClosedRange<Int>) -> Field {
        checked { range.contains($0) ? nil : "must be between \(range.lowerBound) and \(range.upperBound)" }
    }
}

extension Field where Value == Double {
    func within(_ range: ClosedRange<Double>) -> Field {
        let reason = "must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))"
        return checked { range.contains($0) ? nil : reason }
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int64(number)) : String(number)
    }
}

extension Field where Value == Interval {
    /// A number of seconds within `range`.
    static func seconds(_ name: String, in range: ClosedRange<Double>) -> Field {
        Field<Double>.number(name, expected: "a number of seconds").within(range).map(Interval.seconds)
    }
}

extension Field where Value == String {
    /// A colour as `#RRGGBB`, any case, kept in capitals.
    static func colour(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            let text = try value.string()
            let hex = text.utf8.dropFirst()
            guard text.utf8.first == UInt8(ascii: "#"), hex.count == 6,
                hex.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
                })
            else { throw FieldProblem(.invalid, "must be a colour as #RRGGBB") }
            return text.uppercased()
        }
    }
}

extension Field where Value == AccessLogFormat {
    /// `"text"` or `"json"`, or a boolean as `bool()` reads one: true is the text line (what a
    /// boolean meant before JSON was offered), false is off.
    static func accessLogFormat(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            switch value {
            case .json(.string), .text:
                let text = try value.string().trimmingSpaces()
                if text == "text" { return .text }
                if text == "json" { return .json }
            default: break
            }
            do throws(FieldProblem) {
                return try value.bool() ? .text : .off
            } catch {
                throw FieldProblem(.invalid, "must be true, false, \"text\" or \"json\"")
            }
        }
    }
}

extension Field where Value == String? {
    /// A token: at least 8 printable characters without spaces, surrounding blanks aside.
    static func token(_ name: String) -> Field {
        offWhenEmpty(name) { token in
            token.utf8.count >= 8 && token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
                ? nil : "must be at least 8 printable characters without spaces"
        }
    }

    /// A URL to publish each version to (`PublisherConfiguration` says what it must be).
    static func publishTemplate(_ name: String) -> Field {
        offWhenEmpty(name) { PublisherConfiguration.problem(with: $0) }
    }

    /// Text (a string in the file), surrounding blanks aside, kept by `problem`; null in the file
    /// or an empty value is off. The text `null` is text here (unlike `nullable`'s): a token or
    /// URL that is not one is refused, not read as "off".
    private static func offWhenEmpty(
        _ name: String, _ problem: @escaping @Sendable (String) -> String?
    ) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            let text: String
            switch value {
            case .json(.null): return nil
            case .json(.string), .text, .bare: text = try value.string().trimmingSpaces()
            case .json(let other): throw FieldProblem(.malformed, "must be a string or null, not \(other.typeName)")
            }
            if text.isEmpty { return nil }
            if let reason = problem(text) { throw FieldProblem(.invalid, reason) }
            return text
        }
    }
}
