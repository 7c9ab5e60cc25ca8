import OverlayEngine

// The fields of MODEL §11: a wait (`delay`, `expires`), a time (`at`) and a priority, each read
// the same way from JSON, a query, a form and a flag.
extension Field where Value == Interval {
    /// Seconds, as a number or as text with a unit (`30s`, `5m`, `2h`, `1d`), more than 0 and at
    /// most 7 days.
    package static func wait(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            let seconds: Double
            if case .json(.number(let number)) = value {
                seconds = number
            } else {
                let text = try value.string().trimmingSpaces()
                guard let parsed = WaitText.seconds(text) else {
                    throw FieldProblem(
                        .malformed,
                        "must be seconds, or a number with a unit s, m, h or d (30s, 5m, 2h, 1d), not \"\(text)\"")
                }
                seconds = parsed
            }
            let limit = MessageRules.maximumWait.seconds
            guard seconds > 0 && seconds <= limit else {
                throw FieldProblem(.invalid, "must be greater than 0 and at most 7 days (\(Int(limit)) seconds)")
            }
            return .seconds(seconds)
        }
    }
}

extension Field where Value == ScheduleTime {
    /// A number (Unix seconds with the real clock, the manual clock's seconds with that one) or
    /// an RFC 3339 date-time; the engine judges it against its clock.
    package static func time(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            if case .json(.number(let number)) = value { return .number(number) }
            let text = try value.string().trimmingSpaces()
            if let seconds = FieldValue.decimal(text) { return .number(seconds) }
            switch CalendarTime.read(text) {
            case .time(let unix)?: return .calendar(unixNanoseconds: unix)
            case .noSuchTime?: throw FieldProblem(.invalid, "names no date and time on the calendar: \"\(text)\"")
            case nil: break
            }
            throw FieldProblem(
                .malformed,
                "must be a Unix time in seconds or an RFC 3339 date-time (2026-12-02T10:30:00Z), not \"\(text)\"")
        }
    }
}

extension Field where Value == Priority {
    /// 1–5, or a name: min, low, default, high, max (urgent).
    package static func priority(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            let reason = "must be 1 to 5, or min, low, default, high, max (or urgent)"
            if case .json(.number(let number)) = value {
                guard let whole = Int(exactly: number), let priority = Priority(rawValue: whole) else {
                    throw FieldProblem(.invalid, reason)
                }
                return priority
            }
            let text = try value.string().trimmingSpaces()
            if let whole = Int(text), let priority = Priority(rawValue: whole) { return priority }
            guard let priority = Priority(name: text.lowercased()) else { throw FieldProblem(.invalid, reason) }
            return priority
        }
    }
}

/// A wait as text: seconds, or a number and one unit letter.
enum WaitText {
    static func seconds(_ text: String) -> Double? {
        if let seconds = FieldValue.decimal(text) { return seconds }
        guard let unit = text.last else { return nil }
        let scale: Double
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86400
        default: return nil
        }
        return FieldValue.decimal(String(text.dropLast()).trimmingSpaces()).map { $0 * scale }
    }
}
