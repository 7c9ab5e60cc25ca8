import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// The entry point. Built with `-DFUZZING -sanitize=fuzzer` (scripts/fuzz) it hands over to
/// libFuzzer's driver, which takes libFuzzer's flags and corpus directories. SwiftPM renames an
/// executable's entry point on Linux, so libFuzzer's own `main` cannot be the one that runs.
///
/// Built plainly (every `swift build`) it runs each file named, or each file in each directory
/// named, through the fuzz target once: `scripts/fuzz` uses it to replay the corpus and crash
/// files. A failed property stops it, after the input's name on standard error.
@main
enum Replay {
    static func main() {
        #if FUZZING
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzRequestDecoders))
        #else
            var count = 0
            for argument in CommandLine.arguments.dropFirst() {
                for path in files(argument) {
                    guard let bytes = read(path) else {
                        Diagnostics.write("cannot read \(path)\n")
                        exit(2)
                    }
                    Diagnostics.write("\(path)\n")
                    _ = bytes.withUnsafeBufferPointer { fuzzRequestDecoders($0.baseAddress, $0.count) }
                    count += 1
                }
            }
            print("replayed \(count) inputs")
        #endif
    }

    /// The path itself, or the regular files directly inside it when it is a directory.
    static func files(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return ferror(file) == 0 ? bytes : nil
    }
}

#if FUZZING
    /// libFuzzer's C entry point for a program with its own `main` (compiler-rt FuzzerInterface.h).
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
