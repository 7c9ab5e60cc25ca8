import OverlayCommands
import OverlayService
import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

// `overlayd post …` and `overlayd watch …` are clients of a server and end here; with no
// subcommand, `serve`, or a first argument that is a flag, what follows is the server, unchanged.
let serverArguments: [String]
switch Commands.route(Array(CommandLine.arguments.dropFirst()), environment: Environment.current()) {
case .serve(let arguments):
    serverArguments = arguments
case .exit(let status):
    exit(status)
}

// Block the stopping signals before any thread starts, so every thread inherits the mask and the
// signals wait for sigwait below instead of killing the process mid-request. SIGHUP (a closed
// terminal, `kill -HUP`) stops as SIGTERM does, there being nothing to reload.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
// Unless it comes ignored (`nohup`): Linux keeps a blocked signal pending even when ignored, so
// waiting for it would stop on the hang-up nohup was asked to survive.
var hangUp = sigaction()
sigaction(SIGHUP, nil, &hangUp)
if unsafeBitCast(hangUp.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) {
    sigaddset(&signals, SIGHUP)
}
pthread_sigmask(SIG_BLOCK, &signals, nil)
signal(SIGPIPE, SIG_IGN)

let configuration: ServiceConfiguration
do {
    switch try ConfigurationLoader.load(
        arguments: serverArguments, environment: Environment.current())
    {
    case .help:
        print(ConfigurationLoader.usage)
        print("\n" + Commands.usage)
        exit(0)
    case .version:
        print("overlayd \(OverlayService.version)")
        exit(0)
    case .healthcheck(let loaded):
        exit(HealthProbe.isHealthy(host: loaded.host, port: loaded.port) ? 0 : 1)
    case .run(let loaded):
        configuration = loaded
    }
} catch {
    Diagnostics.write("overlayd: configuration error: \(error)\n")
    exit(2)
}

/// Serves until a stopping signal, then stops. The server lives in this scope only, so that it is
/// gone, and everything it made with it, before the process exits: what is left at exit is a
/// leak to the leak checker (scripts/sanitize address), and references it cannot see (an enum's
/// payload beside its tag bits) make a live server's values look like leaks.
func serve(_ configuration: ServiceConfiguration, until signals: inout sigset_t) -> Int32 {
    let server: OverlayServer
    do {
        server = try OverlayServer(configuration: configuration)
    } catch let error as StoreError {
        // A data directory that cannot be used is a configuration problem: never start on empty state.
        Diagnostics.write("overlayd: data error: \(error)\n")
        return 2
    } catch {
        Diagnostics.write("overlayd: \(error)\n")
        return 1
    }
    for override in configuration.overrides {
        Diagnostics.write("overlayd configuration override \(override)\n")
    }
    Diagnostics.write(
        "overlayd \(OverlayService.version) listening host=\(configuration.host) port=\(server.port)"
            + " clock=\(configuration.clock.rawValue) device=\(configuration.device)"
            + " data=\(configuration.ephemeral ? "ephemeral" : configuration.dataDirectory)\n")

    var received: Int32 = 0
    sigwait(&signals, &received)
    Diagnostics.write("overlayd stopping signal=\(received)\n")
    server.stop(grace: 4)
    return 0
}

let status = serve(configuration, until: &signals)
if status == 0 { Diagnostics.write("overlayd stopped\n") }
exit(status)
