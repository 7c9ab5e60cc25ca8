#if canImport(Glibc)
    import Glibc
#endif

/// The data directory's files: creating the directory, owning it, checking the database.
enum StoreFiles {
    static func checkIntegrity(_ database: Database) throws(StoreError) {
        let check = try database.prepare("PRAGMA quick_check")
        guard try check.step() else { throw StoreError("\(database.path): the integrity check returned nothing") }
        let result = check.string(0)
        guard result == "ok" else {
            throw StoreError("\(database.path) is damaged (\(result)); restore it from a backup or move it away")
        }
    }

    /// Holds an exclusive `flock` on `path` for the life of the process (released when it exits,
    /// however it exits).
    static func lock(_ path: String) throws(StoreError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw StoreError("the data directory is in use by another overlayd (\(path) is locked)")
        }
        return descriptor
    }

    /// `mkdir -p`.
    static func makeDirectory(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StoreError("cannot create the data directory \(path): \(String(cString: strerror(errno)))")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError("the data directory \(path) is not a directory")
        }
    }

    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
