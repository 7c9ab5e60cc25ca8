#if canImport(Glibc)
    import Glibc
#endif

/// glibc calls that Swift's Glibc module does not declare (they need `_GNU_SOURCE`), looked up
/// at run time: what makes a descriptor the tests open close-on-exec from the start.
enum GNU {
    private typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    nonisolated(unsafe) private static let process = dlopen(nil, RTLD_NOW)
    private static let accept4: Accept4? = dlsym(process, "accept4").map { unsafeBitCast($0, to: Accept4.self) }
    private static let addCloseFrom: AddCloseFrom? = dlsym(process, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// `accept4(listener, nil, nil, SOCK_CLOEXEC)`; where glibc lacks it, `accept` and then the flag.
    static func acceptClosingOnExec(_ listener: Int32) -> Int32 {
        if let accept4 { return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue)) }
        let socket = accept(listener, nil, nil)
        if socket >= 0 { _ = fcntl(socket, F_SETFD, FD_CLOEXEC) }
        return socket
    }

    /// Adds "close every descriptor from `lowest` up" to `actions` (glibc 2.34 and later);
    /// false where glibc lacks it.
    static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Bool {
        guard let addCloseFrom else { return false }
        return addCloseFrom(&actions, lowest) == 0
    }
}
