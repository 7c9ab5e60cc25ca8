import TestSupport
import Testing

/// docs/ARCHITECTURE.md's module table and docs/API.md's error table, held to what they describe:
/// every target of Package.swift has its row, every C module a Swift module imports is named in
/// that module's row (and imported without reaching its API), and every error code the service
/// answers with is in the error table.
@Suite("The docs against the code")
struct ArchitectureDocTests {
    /// The rows of the module table: the modules its first cell names, and the whole row.
    static func moduleRows() -> [(modules: [String], row: String)] {
        let text = Repository.text("docs/ARCHITECTURE.md")
        guard let table = text.split(separator: "\n## ").first(where: { $0.hasPrefix("Modules") }) else { return [] }
        return table.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let first = line.dropFirst(2).prefix { $0 != "|" }
            return (backticked(first), String(line))
        }
    }

    /// The `name`s of Package.swift's targets, test targets aside.
    static func packageTargets() -> Set<String> {
        let text = Repository.text("Package.swift")
        var names = Set<String>()
        for kind in [".target(", ".systemLibrary(", ".executableTarget("] {
            var rest = Substring(text)
            while let start = rest.firstRange(of: kind) {
                rest = rest[start.upperBound...]
                guard let name = rest.firstRange(of: "name: \"") else { break }
                let value = rest[name.upperBound...].prefix { $0 != "\"" }
                names.insert(String(value))
            }
        }
        return names
    }

    static func backticked(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    @Test func everyTargetHasItsRow() {
        let documented = Set(Self.moduleRows().flatMap(\.modules))
        let targets = Self.packageTargets()
        #expect(targets.count >= 20, "Package.swift read as \(targets)")
        #expect(
            documented == targets,
            "only in the docs: \(documented.subtracting(targets)); only in Package.swift: \(targets.subtracting(documented))"
        )
    }

    /// Each `import C…` of a Swift module names a module its row (or the C module's row) names
    /// beside it, and is `private` or `internal`: no C type is part of another module's API.
    @Test func cModulesAreImportedWhereTheTableSays() {
        let rows = Self.moduleRows()
        var checked = 0
        for file in Repository.files(under: "Sources", endingIn: ".swift") {
            let module = String(file.split(separator: "/")[1])
            for line in Repository.text(file).split(separator: "\n") where line.contains("import C") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[index + 1].first == "C", words[index + 1].dropFirst().first?.isUppercase == true
                else { continue }
                let imported = String(words[index + 1])
                let named = rows.contains { row in
                    (row.modules.contains(module) && row.row.contains("`\(imported)`"))
                        || (row.modules.contains(imported) && row.row.contains("`\(module)`"))
                }
                #expect(named, "\(file) imports \(imported), which the table does not name beside \(module)")
                #expect(["private", "internal"].contains(words.first), "\(file): \(line)")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    /// Every `code:` the service answers with is a row of docs/API.md's error table, and every row
    /// is one it answers with.
    @Test func everyErrorCodeIsDocumented() {
        var answered = Set<String>()
        for file in Repository.files(under: "Sources/OverlayService", endingIn: ".swift") {
            var rest = Substring(Repository.text(file))
            while let found = rest.firstRange(of: "code: \"") {
                rest = rest[found.upperBound...]
                answered.insert(String(rest.prefix { $0 != "\"" }))
            }
        }
        var documented = Set<String>()
        for line in Repository.text("docs/API.md").split(separator: "\n")
        where line.hasPrefix("| 4") || line.hasPrefix("| 5") {
            let first = line.dropFirst(2).prefix { $0 != "|" }
            documented.formUnion(Self.backticked(first))
        }
        #expect(answered.count >= 30, "the sources read as \(answered)")
        #expect(
            documented == answered,
            "undocumented: \(answered.subtracting(documented)); never answered: \(documented.subtracting(answered))")
    }

    /// The walk of a POST stays a newcomer's walk: at most eight numbered steps, and every file it
    /// names is there (a path in backticks, under Sources/ or one of its modules).
    @Test func aPostIsFollowedInEightStepsThroughFilesThatExist() {
        let text = Repository.text("docs/ARCHITECTURE.md")
        guard let walk = text.split(separator: "\n## ").first(where: { $0.hasPrefix("A POST, in eight steps") }) else {
            Issue.record("docs/ARCHITECTURE.md has no section 'A POST, in eight steps'")
            return
        }
        let steps = walk.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(". **") }
        #expect((5...8).contains(steps.count), "\(steps.count) steps")
        let sources =
            Repository.files(under: "Sources", endingIn: ".swift") + Repository.files(under: "Sources", endingIn: ".h")
        let paths = Self.backticked(walk).filter { $0.hasSuffix(".swift") || $0.hasSuffix(".h") }
        #expect(paths.count >= 6, "\(paths)")
        for path in paths {
            #expect(sources.contains { $0.hasSuffix("/" + path) }, "\(path) is not under Sources")
        }
    }
}
