/// One row of a settings table (`SettingTable`): where the setting sits in its JSON object, the
/// environment variable and flag that also set it, what `--help` says of it, and how its value is
/// read and stored. The configuration's rows are `ConfigurationSettings`.
struct Setting<Target>: Sendable {
    /// Its key in the table's object, dotted when it sits in a nested one (`limits.maxBodyBytes`).
    let key: String
    /// What `--help` says of it, in a few words.
    let summary: String
    /// The default as `--help` shows it, or nil to show none.
    let shownDefault: String?
    let flag: SettingFlag?
    let variable: String?
    /// Whether an empty variable turns the setting off; any other empty variable counts as unset.
    let emptyIsOff: Bool
    /// Reads `value` and stores it; an error names the value `name`: the key's dotted path in the
    /// file, or the variable or flag that gave it.
    let read: @Sendable (_ value: FieldValue, _ name: String, _ target: inout Target) throws(ConfigurationError) -> Void

    /// A setting read by `field` (named by its key) and stored at `path`.
    init<Value>(
        _ field: Field<Value>, _ path: WritableKeyPath<Target, Value> & Sendable, _ summary: String = "",
        default shownDefault: String? = nil, flag: SettingFlag? = nil, variable: String? = nil,
        emptyIsOff: Bool = false
    ) {
        let read = field.read
        self.init(
            field.name, summary, default: shownDefault, flag: flag, variable: variable, emptyIsOff: emptyIsOff
        ) { (value, name, target) throws(ConfigurationError) in
            do throws(FieldProblem) {
                target[keyPath: path] = try read(value)
            } catch {
                throw ConfigurationError(key: name, reason: error.reason)
            }
        }
    }

    /// A setting that is an object of `table`'s settings, stored at `path`.
    init<Value>(
        _ key: String, _ table: SettingTable<Value>, _ path: WritableKeyPath<Target, Value> & Sendable,
        _ summary: String = ""
    ) {
        self.init(key, summary) { (value, name, target) throws(ConfigurationError) in
            try table.apply(value.json, at: name, to: &target[keyPath: path])
        }
    }

    /// A setting read by a reader of its own: for an object whose keys are data (`devices`) or
    /// values that name their own parts in errors (`allowedHosts[2]`).
    init(
        _ key: String, _ summary: String = "", default shownDefault: String? = nil, flag: SettingFlag? = nil,
        variable: String? = nil, emptyIsOff: Bool = false,
        read: @escaping @Sendable (FieldValue, String, inout Target) throws(ConfigurationError) -> Void
    ) {
        self.key = key
        self.summary = summary
        self.shownDefault = shownDefault
        self.flag = flag
        self.variable = variable
        self.emptyIsOff = emptyIsOff
        self.read = read
    }

    /// The top-level key it belongs to (`limits` for `limits.maxBodyBytes`).
    var topLevelKey: String { String(key.prefix { $0 != "." }) }
}
