/// The templates overlayd knows by name: Prometheus Alertmanager's webhook (version 4),
/// Grafana's alerting webhook (the same shape), and GitHub's deliveries, chosen by their
/// `X-GitHub-Event`. docs/INTEGRATIONS.md tells what each maps where.
///
/// Built by each service rather than kept in static storage: an enum's payload pointers carry
/// tag bits that LeakSanitizer does not read as pointers, so a template held by a global for the
/// process's life reads as leaked to the fuzzer.
struct BuiltInTemplates: Sendable {
    static let names = ["alertmanager", "grafana", "github"]

    let alertmanager = Self.alerts(keyPrefix: "alertmanager-")
    let grafana = Self.alerts(keyPrefix: "grafana-")
    let workflowRun = Self.workflowRun()
    let deploymentStatus = Self.deploymentStatus()

    /// A pointer written here, with no `~` escapes.
    private static func at(_ path: String) -> JSONPointer {
        JSONPointer(tokens: path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init))
    }

    private static func text(_ literal: String) -> TemplateValue { .literal(.string(literal)) }

    /// One message per alert, keyed by its fingerprint: firing is `failed`, resolved `sent`.
    static func alerts(keyPrefix: String) -> WebhookTemplate {
        WebhookTemplate(
            shape: [.init(pointer: at("/alerts"), kind: .array)],
            each: at("/alerts"),
            elementShape: [
                .init(pointer: at("/status"), kind: .string, oneOf: ["firing", "resolved"]),
                .init(pointer: at("/fingerprint"), kind: .string),
                .init(pointer: at("/labels"), kind: .stringMap, required: false),
                .init(pointer: at("/annotations"), kind: .stringMap, required: false),
            ],
            fields: [
                .init(field: .key, value: .prefixed(keyPrefix, at("/fingerprint"))),
                .init(
                    field: .kind,
                    value: .mapped(
                        at("/status"), ["firing": .string("failed"), "resolved": .string("sent")], default: nil)),
                .init(
                    field: .text,
                    value: .first([
                        .pointer(at("/annotations/summary")), .pointer(at("/labels/alertname")), text("alert"),
                    ])),
                .init(
                    field: .subtitle,
                    value: .joined(
                        " · ",
                        [
                            .when(
                                .present(at("/annotations/summary")), .pointer(at("/labels/alertname")), otherwise: nil),
                            .pointer(at("/labels/instance")),
                        ])),
                .init(
                    field: .priority,
                    value: .when(
                        .oneOf(at("/status"), ["firing"]),
                        .mapped(
                            at("/labels/severity"),
                            ["critical": .number(5), "warning": .number(4), "info": .number(2)],
                            default: nil),
                        otherwise: nil)),
            ])
    }

    /// A workflow run: one message from request to conclusion.
    static func workflowRun() -> WebhookTemplate {
        WebhookTemplate(
            shape: [],
            elementShape: [
                .init(pointer: at("/action"), kind: .string),
                .init(pointer: at("/workflow_run"), kind: .object),
                .init(pointer: at("/workflow_run/id"), kind: .number),
                .init(pointer: at("/workflow_run/name"), kind: .string, required: false),
                .init(pointer: at("/workflow_run/run_number"), kind: .number),
                .init(pointer: at("/workflow_run/conclusion"), kind: .string, required: false),
                .init(pointer: at("/workflow_run/head_branch"), kind: .string, required: false),
                .init(pointer: at("/repository/full_name"), kind: .string),
            ],
            only: .oneOf(at("/action"), ["requested", "in_progress", "completed"]),
            fields: [
                .init(field: .key, value: .prefixed("github-run-", at("/workflow_run/id"))),
                .init(
                    field: .kind,
                    value: .when(
                        .oneOf(at("/action"), ["completed"]),
                        .mapped(
                            at("/workflow_run/conclusion"),
                            [
                                "success": .string("sent"), "failure": .string("failed"),
                                "timed_out": .string("failed"),
                                "startup_failure": .string("failed"),
                            ], default: .string("info")),
                        otherwise: text("sending"))),
                // A run's name is its workflow's; should it be blank, the workflow's own, else "Workflow".
                .init(
                    field: .text,
                    value: .concatenated([
                        .first([.pointer(at("/workflow_run/name")), .pointer(at("/workflow/name")), text("Workflow")]),
                        text(" #"), .pointer(at("/workflow_run/run_number")),
                    ])),
                .init(
                    field: .subtitle,
                    value: .joined(
                        " · ", [.pointer(at("/repository/full_name")), .pointer(at("/workflow_run/head_branch"))])),
                .init(field: .priority, value: .literal(.null)),
            ],
            yieldsToLiveKind: true)
    }

    /// A deployment's status: one message per deployment.
    static func deploymentStatus() -> WebhookTemplate {
        WebhookTemplate(
            shape: [],
            elementShape: [
                .init(pointer: at("/deployment"), kind: .object),
                .init(pointer: at("/deployment/id"), kind: .number),
                .init(pointer: at("/deployment/environment"), kind: .string),
                .init(pointer: at("/deployment_status"), kind: .object),
                .init(pointer: at("/deployment_status/state"), kind: .string),
                .init(pointer: at("/repository/full_name"), kind: .string),
            ],
            fields: [
                .init(field: .key, value: .prefixed("github-deployment-", at("/deployment/id"))),
                .init(
                    field: .kind,
                    value: .mapped(
                        at("/deployment_status/state"),
                        [
                            "queued": .string("sending"), "pending": .string("sending"),
                            "in_progress": .string("sending"),
                            "success": .string("sent"), "failure": .string("failed"), "error": .string("failed"),
                        ], default: .string("info"))),
                .init(
                    field: .text, value: .concatenated([text("Deploy to "), .pointer(at("/deployment/environment"))])),
                .init(field: .subtitle, value: .pointer(at("/repository/full_name"))),
                .init(field: .priority, value: .literal(.null)),
            ])
    }

    /// GitHub's template for a delivery's `X-GitHub-Event`; nil for an event that makes no message
    /// (`ping`, and every event but these two).
    func github(event: String) -> WebhookTemplate? {
        switch event {
        case "workflow_run": workflowRun
        case "deployment_status": deploymentStatus
        default: nil
        }
    }
}
