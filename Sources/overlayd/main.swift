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

let server: OverlayServer
do {
    server = try OverlayServer(configuration: configuration)
} catch let error as StoreError {
    // A data directory that cannot be used is a configuration problem: never start on empty state.
    Diagnostics.write("overlayd: data error: \(error)\n")
    exit(2)
} catch {
    Diagnostics.write("overlayd: \(error)\n")
    exit(1)
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
Diagnostics.write("overlayd stopped\n")
exit(0)
