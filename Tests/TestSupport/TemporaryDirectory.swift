#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory from `mkdtemp`, removed with everything in it when released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// A new directory in `parent` (the system's temporary directory unless given).
    public init(in parent: String = "/tmp") throws {
        var template = Array("\(parent)/overlayd-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw TestSupportError("mkdtemp failed: errno \(errno)") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        TemporaryDirectory.remove(path)
    }

    /// Writes `text` to the file `name` in the directory, replacing what it held; answers its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("open \(name) failed: errno \(errno)") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw TestSupportError("write \(name) failed")
        }
        return file
    }

    /// The text of the file `name` in this directory ("" if there is none yet).
    public func read(_ name: String) -> String {
        TemporaryDirectory.read(path + "/" + name)
    }

    /// The text of the file at `path` ("" if it cannot be read).
    public static func read(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += buffer[..<count]
        }
    }

    /// `rm -rf`, restoring permissions on the way so that a chmod 000 test leaves nothing behind.
    public static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o700)
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { remove(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
