import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What this machine lets a test do beyond a user's rights, each the condition of an `.enabled`
/// trait: a test that cannot run here is skipped, and the run says why, instead of passing.
enum Capabilities {
    /// Whether a tmpfs can be mounted here: as root, where the sandbox allows mounts.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let directory = try? TemporaryDirectory() else { return false }
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=1m") == 0 else { return false }
        umount2(directory.path, Int32(MNT_DETACH))
        return true
    }()

    /// Whether file permissions bind an overlayd started here: they bind a user, and root only
    /// through overlayd run as `nobody` (setpriv), which needs the executable reachable for it.
    static let permissionsBindOverlayd: Bool = {
        guard getuid() == 0 else { return true }
        guard access("/usr/bin/setpriv", X_OK) == 0, let overlayd = try? OverlaydExecutable.path() else { return false }
        let probe = try? ChildProcess.overlayd(
            nobody + [overlayd, "--version"], executable: "/usr/bin/setpriv")
        return probe?.exitStatus() == 0
    }()

    /// setpriv's arguments that run a program as `nobody`, with no groups.
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
}
