#if canImport(Glibc)
    import Glibc
#endif

/// The files of this checkout, for tests that hold the docs and the code to each other.
public enum Repository {
    /// The checkout's root: this file is Tests/TestSupport/Repository.swift, three components up.
    public static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// The absolute path of `relative` (as `docs/API.md`).
    public static func path(_ relative: String) -> String { root + "/" + relative }

    /// The text of the file at `relative`; empty when it cannot be read (a test then fails on
    /// what it expected to find).
    public static func text(_ relative: String) -> String { TemporaryDirectory.read(path(relative)) }
}

extension Repository {
    /// The paths, relative to the root, of the files under the folder `relative` whose names end
    /// in `suffix`, in every subfolder, sorted.
    public static func files(under relative: String, endingIn suffix: String) -> [String] {
        var found: [String] = []
        var folders = [relative]
        while let folder = folders.popLast() {
            guard let directory = opendir(path(folder)) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name != ".", name != ".." else { continue }
                let child = folder + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    folders.append(child)
                } else if name.hasSuffix(suffix) {
                    found.append(child)
                }
            }
        }
        return found.sorted()
    }
}
