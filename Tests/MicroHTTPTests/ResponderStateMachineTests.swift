import Testing

@testable import MicroHTTP

/// The responder's state machine driven directly, each test a script of events with the action
/// each must return. Replies are strings; socket 7 stands for the connection's descriptor.
@Suite("Responder state machine")
struct ResponderStateMachineTests {
    typealias Machine = ResponderStateMachine<String>

    /// A machine whose handler is running.
    static func handling() -> Machine {
        var machine = Machine()
        #expect(machine.requestReceived() == .runHandler)
        return machine
    }

    /// A machine whose handler returned without answering and whose connection is suspended.
    static func suspended(endsIfClientLeaves: Bool = true) -> Machine {
        var machine = handling()
        if endsIfClientLeaves { machine.endIfClientLeaves() }
        #expect(machine.handlerReturned() == .suspend)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        return machine
    }

    /// An answer given while the handler runs is queued when it returns: no suspend.
    @Test func answerDuringHandler() {
        var machine = Self.handling()
        #expect(!machine.hasResponded)
        #expect(machine.replyArrived("200") == .none)
        #expect(machine.hasResponded)
        #expect(machine.handlerReturned() == .queue("200"))
        #expect(machine.state == .sent)
        #expect(machine.requestCompleted() == .none)
        #expect(machine.state == .finished)
    }

    /// A handler that returns without an answer suspends; the answer resumes, and the call after
    /// the resume queues it.
    @Test func answerAfterSuspend() {
        var machine = Self.handling()
        #expect(machine.handlerReturned() == .suspend)
        #expect(!machine.hasResponded)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.state == .suspended(socket: 7))
        #expect(machine.replyArrived("200") == .resume)
        #expect(machine.requestReceived() == .queue("200"))
        #expect(machine.requestCompleted() == .none)
    }

    /// A reply arriving while the suspend call is being made is kept, and the resume is asked for
    /// only once the suspend is done: never a resume before its suspend.
    @Test func replyDuringSuspending() {
        var machine = Self.handling()
        #expect(machine.handlerReturned() == .suspend)
        #expect(machine.replyArrived("200") == .none)
        #expect(machine.hasResponded)
        #expect(machine.suspendCompleted(socket: 7) == .resume)
        #expect(machine.requestReceived() == .queue("200"))
    }

    /// Only the first of two replies during the suspend counts.
    @Test func secondReplyDuringSuspending() {
        var machine = Self.handling()
        #expect(machine.handlerReturned() == .suspend)
        #expect(machine.replyArrived("200") == .none)
        #expect(machine.replyArrived("503") == .rejectReply)
        #expect(machine.suspendCompleted(socket: 7) == .resume)
        #expect(machine.requestReceived() == .queue("200"))
    }

    /// A second reply is refused in every state that has one: handling, suspended, sent.
    @Test func doubleReply() {
        var machine = Self.handling()
        #expect(machine.replyArrived("200") == .none)
        #expect(machine.replyArrived("503") == .rejectReply)
        #expect(machine.handlerReturned() == .queue("200"))
        #expect(machine.replyArrived("503") == .rejectReply)

        var waiting = Self.suspended()
        #expect(waiting.replyArrived("200") == .resume)
        #expect(waiting.replyArrived("503") == .rejectReply)
        #expect(waiting.requestReceived() == .queue("200"))
    }

    /// A reply after libmicrohttpd completed the request (the client went, or the server
    /// stopped) is refused and asks for nothing: the connection is gone.
    @Test func replyAfterCompletion() {
        var machine = Self.suspended()
        #expect(machine.requestCompleted() == .none)
        #expect(machine.replyArrived("200") == .rejectReply)
        #expect(machine.sweep() == .none)
        #expect(machine.clientGone(answer: "499") == .none)
        #expect(machine.requestReceived() == .none)
        #expect(machine.hasResponded)
    }

    /// A reader whose client has gone: the sweep asks for a peek at its socket, and the gone
    /// client's answer resumes the connection so that libmicrohttpd closes it.
    @Test func clientGoneWhileSuspended() {
        var machine = Self.suspended()
        #expect(machine.sweep() == .probe(socket: 7))
        #expect(machine.clientGone(answer: "499") == .resume)
        #expect(machine.replyArrived("200") == .rejectReply)
        #expect(machine.requestReceived() == .queue("499"))
    }

    /// The sweep leaves alone a request that did not ask to end when its client leaves (a write
    /// waiting for its commit).
    @Test func sweepSparesWrites() {
        var machine = Self.suspended(endsIfClientLeaves: false)
        #expect(machine.sweep() == .none)
        #expect(machine.clientGone(answer: "499") == .none)
        #expect(machine.replyArrived("200") == .resume)
    }

    /// An answer that came between the sweep's peek and its verdict wins: the verdict is ignored.
    @Test func replyBetweenPeekAndVerdict() {
        var machine = Self.suspended()
        #expect(machine.sweep() == .probe(socket: 7))
        #expect(machine.replyArrived("200") == .resume)
        #expect(machine.clientGone(answer: "499") == .none)
        #expect(machine.requestReceived() == .queue("200"))
    }

    /// The sweep peeks only at a suspended connection: never at one being suspended, answered,
    /// or gone.
    @Test func sweepOnlyWhenSuspended() {
        var receiving = Machine()
        receiving.endIfClientLeaves()
        #expect(receiving.sweep() == .none)
        var handling = Self.handling()
        handling.endIfClientLeaves()
        #expect(handling.sweep() == .none)
        #expect(handling.clientGone(answer: "499") == .none)
        #expect(handling.handlerReturned() == .suspend)
        #expect(handling.sweep() == .none)
        #expect(handling.clientGone(answer: "499") == .none)
        #expect(handling.suspendCompleted(socket: 7) == .none)
        #expect(handling.replyArrived("200") == .resume)
        #expect(handling.sweep() == .none)
        #expect(handling.requestReceived() == .queue("200"))
        #expect(handling.sweep() == .none)
        #expect(handling.requestCompleted() == .none)
        #expect(handling.sweep() == .none)
    }

    /// The server's own answer before the handler (413, a stop) is queued at once; the handler
    /// never runs, and nothing else is queued.
    @Test func refusedBeforeHandler() {
        var machine = Machine()
        #expect(machine.refused("413") == .queue("413"))
        #expect(machine.hasResponded)
        #expect(machine.requestReceived() == .none)
        #expect(machine.refused("413") == .none)
        #expect(machine.replyArrived("200") == .rejectReply)
        #expect(machine.handlerReturned() == .none)
        #expect(machine.requestCompleted() == .none)
    }

    /// Once the handler has run, the server cannot refuse any more.
    @Test func refusedOnlyWhileReceiving() {
        var machine = Self.handling()
        #expect(machine.refused("413") == .none)
        #expect(machine.handlerReturned() == .suspend)
        #expect(machine.refused("413") == .none)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.refused("413") == .none)
    }

    /// An answer given before libmicrohttpd has the whole request is queued when it has.
    @Test func replyWhileReceiving() {
        var machine = Machine()
        #expect(machine.replyArrived("200") == .none)
        #expect(machine.requestReceived() == .queue("200"))
    }

    /// A request that ends with an answer not yet queued gives it back, so that a stream's
    /// writer learns it is over.
    @Test func completedBeforeQueueing() {
        var ready = Self.suspended()
        #expect(ready.replyArrived("stream") == .resume)
        #expect(ready.requestCompleted() == .discard("stream"))

        var suspending = Self.handling()
        #expect(suspending.handlerReturned() == .suspend)
        #expect(suspending.replyArrived("stream") == .none)
        #expect(suspending.requestCompleted() == .discard("stream"))

        var handling = Self.handling()
        #expect(handling.requestCompleted() == .none)
    }

    /// Calls out of order ask for nothing: a second suspend, a resume with no answer, a handler
    /// return before the request.
    @Test func eventsOutOfOrder() {
        var machine = Machine()
        #expect(machine.handlerReturned() == .none)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.requestReceived() == .runHandler)
        #expect(machine.requestReceived() == .none)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.handlerReturned() == .suspend)
        #expect(machine.handlerReturned() == .none)
        #expect(machine.requestReceived() == .none)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.suspendCompleted(socket: 7) == .none)
        #expect(machine.handlerReturned() == .none)
        #expect(machine.requestReceived() == .none)
        #expect(machine.state == .suspended(socket: 7))
    }

    /// Each state the machine can be in, reached by its events.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case receiving, handling, ready, suspending, suspendingWithReply, suspended, sent, finished

        var testDescription: String { rawValue }

        /// A machine in this state whose handler asked to end if its client leaves; "r" is the
        /// reply it holds, if any.
        var machine: Machine {
            var machine = Machine()
            machine.endIfClientLeaves()
            if self == .receiving { return machine }
            _ = machine.requestReceived()
            switch self {
            case .receiving, .handling: break
            case .ready: _ = machine.replyArrived("r")
            case .suspending: _ = machine.handlerReturned()
            case .suspendingWithReply:
                _ = machine.handlerReturned()
                _ = machine.replyArrived("r")
            case .suspended:
                _ = machine.handlerReturned()
                _ = machine.suspendCompleted(socket: 7)
            case .sent:
                _ = machine.replyArrived("r")
                _ = machine.handlerReturned()
            case .finished:
                _ = machine.replyArrived("r")
                _ = machine.handlerReturned()
                _ = machine.requestCompleted()
            }
            return machine
        }
    }

    /// Every event in every state, each from a fresh machine: the whole table of actions.
    @Test(arguments: Start.allCases) func everyEventInEveryState(_ start: Start) {
        typealias Row = (
            received: Machine.Action, refused: Machine.Action, returned: Machine.Action, reply: Machine.Action,
            suspended: Machine.Action, sweep: Machine.Action, gone: Machine.Action, completed: Machine.Action
        )
        let table: [Start: Row] = [
            .receiving: (.runHandler, .queue("x"), .none, .none, .none, .none, .none, .none),
            .handling: (.none, .none, .suspend, .none, .none, .none, .none, .none),
            .ready: (.queue("r"), .none, .queue("r"), .rejectReply, .none, .none, .none, .discard("r")),
            .suspending: (.none, .none, .none, .none, .none, .none, .none, .none),
            .suspendingWithReply: (.none, .none, .none, .rejectReply, .resume, .none, .none, .discard("r")),
            .suspended: (.none, .none, .none, .resume, .none, .probe(socket: 7), .resume, .none),
            .sent: (.none, .none, .none, .rejectReply, .none, .none, .none, .none),
            .finished: (.none, .none, .none, .rejectReply, .none, .none, .none, .none),
        ]
        let row = table[start]!
        var machine = start.machine
        #expect(machine.requestReceived() == row.received)
        machine = start.machine
        #expect(machine.refused("x") == row.refused)
        machine = start.machine
        #expect(machine.handlerReturned() == row.returned)
        machine = start.machine
        #expect(machine.replyArrived("n") == row.reply)
        machine = start.machine
        #expect(machine.suspendCompleted(socket: 7) == row.suspended)
        machine = start.machine
        #expect(machine.sweep() == row.sweep)
        #expect(machine.clientGone(answer: "g") == row.gone)
        machine = start.machine
        #expect(machine.requestCompleted() == row.completed)
        #expect(machine.state == .finished)
    }
}
