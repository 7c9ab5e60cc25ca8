import Testing

@testable import MicroHTTP

/// The stream's state machine driven directly, each test a script of events with the action each
/// must return. Listings are numbers; socket 5 stands for the connection's descriptor.
@Suite("Stream state machine")
struct StreamStateMachineTests {
    typealias Machine = StreamStateMachine<Int>

    /// What one `read` of up to `capacity` bytes does, and the bytes it copied.
    static func read(_ machine: inout Machine, capacity: Int = 64) -> (Machine.ReadAction, String) {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let action = buffer.withUnsafeMutableBytes { machine.read(into: $0) }
        guard case .wrote(let count) = action else { return (action, "") }
        return (action, String(decoding: buffer[..<count], as: UTF8.self))
    }

    /// A machine whose reader found nothing and whose connection is suspended.
    static func suspended() -> Machine {
        var machine = Machine()
        #expect(read(&machine).0 == .suspend)
        #expect(machine.suspendCompleted(socket: 5) == .none)
        #expect(machine.connection == .suspended)
        return machine
    }

    /// Pieces sent while the connection is awake are read out in order, across reads.
    @Test func sendThenRead() {
        var machine = Machine()
        #expect(machine.send(Array("hello ".utf8), limit: 100) == .queued)
        #expect(machine.send(Array("world".utf8), limit: 100) == .queued)
        #expect(machine.buffered == 11)
        #expect(Self.read(&machine, capacity: 8) == (.wrote(8), "hello wo"))
        #expect(Self.read(&machine, capacity: 8) == (.wrote(3), "rld"))
        #expect(machine.buffered == 0)
        #expect(machine.sent == 11)
    }

    /// The piece being sent and the ones queued behind it go out in order across reads of any
    /// size, with more arriving meanwhile; a drained buffer takes a new first piece.
    @Test func queuedPiecesFollowInOrder() {
        var machine = Machine()
        #expect(machine.send(Array("one ".utf8), limit: 100) == .queued)
        #expect(machine.send(Array("two ".utf8), limit: 100) == .queued)
        #expect(Self.read(&machine, capacity: 2) == (.wrote(2), "on"))
        #expect(machine.send(Array("three ".utf8), limit: 100) == .queued)
        #expect(Self.read(&machine, capacity: 5) == (.wrote(5), "e two"))
        #expect(Self.read(&machine, capacity: 3) == (.wrote(3), " th"))
        #expect(machine.buffered == 4)
        #expect(Self.read(&machine) == (.wrote(4), "ree "))
        #expect(machine.buffered == 0)
        #expect(machine.send(Array("four".utf8), limit: 100) == .queued)
        #expect(Self.read(&machine) == (.wrote(4), "four"))
        #expect(machine.sent == 18)
        #expect(Self.read(&machine).0 == .suspend)
    }

    /// An empty buffer suspends the connection; the next piece resumes it.
    @Test func sendWakesSuspended() {
        var machine = Self.suspended()
        #expect(machine.send(Array("event".utf8), limit: 100) == .resume)
        #expect(machine.connection == .active)
        #expect(machine.send(Array("more".utf8), limit: 100) == .queued)
        #expect(Self.read(&machine) == (.wrote(9), "eventmore"))
    }

    /// A piece sent while the suspend call is being made is kept; the resume is asked for only
    /// once the suspend is done.
    @Test func sendDuringSuspending() {
        var machine = Machine()
        #expect(Self.read(&machine).0 == .suspend)
        #expect(machine.send(Array("event".utf8), limit: 100) == .queued)
        #expect(machine.suspendCompleted(socket: 5) == .resume)
        #expect(machine.connection == .active)
        #expect(Self.read(&machine) == (.wrote(5), "event"))
    }

    /// The end while suspended resumes the connection, which then reads the end of the stream.
    @Test func endWhileSuspended() {
        var machine = Self.suspended()
        #expect(machine.end() == .resume)
        #expect(machine.isClosed)
        #expect(Self.read(&machine).0 == .endOfStream)
    }

    /// The end while the suspend call is being made is kept, and resumes once it is done.
    @Test func endDuringSuspending() {
        var machine = Machine()
        #expect(Self.read(&machine).0 == .suspend)
        #expect(machine.end() == .none)
        #expect(machine.suspendCompleted(socket: 5) == .resume)
        #expect(Self.read(&machine).0 == .endOfStream)
    }

    /// What was buffered before the end still goes out, then the end.
    @Test func endAfterPieces() {
        var machine = Machine()
        #expect(machine.send(Array("last".utf8), limit: 100) == .queued)
        #expect(machine.end() == .none)
        #expect(machine.send(Array("late".utf8), limit: 100) == .rejected)
        #expect(Self.read(&machine) == (.wrote(4), "last"))
        #expect(Self.read(&machine).0 == .endOfStream)
    }

    /// Over the limit, pieces not yet started are dropped and the newest kept.
    @Test func slowReaderKeepsLatest() {
        var machine = Machine()
        #expect(machine.send(Array("aaaa".utf8), limit: 10) == .queued)
        #expect(machine.send(Array("bbbb".utf8), limit: 10) == .queued)
        #expect(machine.send(Array("cccc".utf8), limit: 10) == .queued)
        #expect(machine.buffered == 4)
        #expect(Self.read(&machine) == (.wrote(4), "cccc"))
    }

    /// A piece partly handed out goes out whole even when the buffer overflows: the framing of
    /// the event being received is never cut.
    @Test func partlySentPieceSurvivesOverflow() {
        var machine = Machine()
        #expect(machine.send(Array("aaaa".utf8), limit: 10) == .queued)
        #expect(machine.send(Array("bbbb".utf8), limit: 10) == .queued)
        #expect(Self.read(&machine, capacity: 2) == (.wrote(2), "aa"))
        #expect(machine.send(Array("cccccc".utf8), limit: 10) == .queued)
        #expect(machine.buffered == 8)
        #expect(Self.read(&machine) == (.wrote(8), "aacccccc"))
    }

    /// Numbered pieces go out only in growing order: one numbered no higher than the last sent
    /// (two writers racing, the later one with the older version) is skipped, as is one the
    /// client said it has; unnumbered pieces go out whatever their place.
    @Test func numberedPiecesOnlyGrow() {
        var machine = Machine()
        #expect(machine.send(Array("5".utf8), number: 5, limit: 100) == .queued)
        #expect(machine.send(Array("4".utf8), number: 4, limit: 100) == .skipped)
        #expect(machine.send(Array("5".utf8), number: 5, limit: 100) == .skipped)
        #expect(machine.send(Array(":".utf8), limit: 100) == .queued)
        #expect(machine.send(Array("6".utf8), number: 6, limit: 100) == .queued)
        machine.skip(through: 8)
        #expect(machine.lastNumber == 8)
        #expect(machine.send(Array("8".utf8), number: 8, limit: 100) == .skipped)
        // Skipping through an older number keeps the higher one.
        machine.skip(through: 2)
        #expect(machine.send(Array("7".utf8), number: 7, limit: 100) == .skipped)
        #expect(machine.send(Array("9".utf8), number: 9, limit: 100) == .queued)
        #expect(Self.read(&machine) == (.wrote(4), "5:69"))
        #expect(machine.end() == .none)
        #expect(machine.send(Array("10".utf8), number: 10, limit: 100) == .rejected)
    }

    /// A keep-alive goes out only when nothing waits to be sent: behind a backed-up client it
    /// would be the newest piece, which the buffer keeps over the event not yet received.
    @Test func keepAliveOnlyWhenIdle() {
        var machine = Machine()
        #expect(machine.send(Array("event".utf8), limit: 100) == .queued)
        #expect(machine.sendIfIdle(Array(":".utf8), limit: 100) == .skipped)
        #expect(Self.read(&machine) == (.wrote(5), "event"))
        #expect(machine.sendIfIdle(Array(":".utf8), limit: 100) == .queued)
        #expect(Self.read(&machine) == (.wrote(1), ":"))
        #expect(machine.end() == .none)
        #expect(machine.sendIfIdle(Array(":".utf8), limit: 100) == .rejected)
    }

    /// The sweep peeks at a suspended stream's socket; a gone client's stream drops what it holds
    /// and is woken to end.
    @Test func clientGoneWhileSuspended() {
        var machine = Self.suspended()
        #expect(machine.sweep() == .probe(socket: 5))
        #expect(machine.clientGone() == .resume)
        #expect(machine.isClosed)
        #expect(machine.buffered == 0)
        #expect(Self.read(&machine).0 == .endOfStream)
        #expect(machine.send(Array("event".utf8), limit: 100) == .rejected)
        #expect(machine.sweep() == .none)
    }

    /// A stream woken between the sweep's peek and its verdict is not ended by it: it may have
    /// more to send, and its client will be found on the next sweep or write.
    @Test func wokenBetweenPeekAndVerdict() {
        var machine = Self.suspended()
        #expect(machine.sweep() == .probe(socket: 5))
        #expect(machine.send(Array("event".utf8), limit: 100) == .resume)
        #expect(machine.clientGone() == .none)
        #expect(!machine.isClosed)
        #expect(Self.read(&machine) == (.wrote(5), "event"))
    }

    /// The sweep never peeks at a stream that is awake, being suspended, or released.
    @Test func sweepOnlyWhenSuspended() {
        var machine = Machine()
        #expect(machine.sweep() == .none)
        #expect(machine.clientGone() == .none)
        #expect(Self.read(&machine).0 == .suspend)
        #expect(machine.sweep() == .none)
        #expect(machine.clientGone() == .none)
        #expect(machine.suspendCompleted(socket: 5) == .none)
        #expect(machine.released() == nil)
        #expect(machine.sweep() == .none)
        #expect(machine.clientGone() == .none)
    }

    /// The first listing is the stream's for life: a later one is told where it is. Release (the
    /// connection closed) hands it back once to be taken off, and no listing is taken after it.
    @Test func releaseHandsBackTheListing() {
        var machine = Machine()
        #expect(machine.list(at: 1) == 1)
        #expect(machine.list(at: 2) == 1)
        #expect(!machine.isReleased)
        #expect(machine.released() == 1)
        #expect(machine.released() == nil)
        #expect(machine.list(at: 3) == nil)
        #expect(machine.isClosed && machine.isReleased)
    }

    /// A send whose resume is in flight when the connection is released: the release still hands
    /// back the listing, and everything after it is refused or asks for nothing.
    @Test func releaseWhileSendInFlight() {
        var machine = Self.suspended()
        #expect(machine.list(at: 1) == 1)
        #expect(machine.send(Array("event".utf8), limit: 100) == .resume)
        #expect(machine.released() == 1)
        #expect(machine.buffered == 0)
        #expect(machine.send(Array("event".utf8), limit: 100) == .rejected)
        #expect(machine.end() == .none)
        #expect(machine.suspendCompleted(socket: 5) == .none)
        #expect(Self.read(&machine).0 == .endOfStream)
    }

    /// Released while suspended (the server stopped): nothing is resumed afterwards.
    @Test func releaseWhileSuspended() {
        var machine = Self.suspended()
        #expect(machine.released() == nil)
        #expect(machine.send(Array("event".utf8), limit: 100) == .rejected)
        #expect(machine.end() == .none)
        #expect(machine.clientGone() == .none)
    }

    /// A suspend reported while none was asked for changes nothing.
    @Test func suspendCompletedOutOfOrder() {
        var machine = Machine()
        #expect(machine.suspendCompleted(socket: 5) == .none)
        #expect(machine.connection == .active)
        var suspended = Self.suspended()
        #expect(suspended.suspendCompleted(socket: 5) == .none)
        #expect(suspended.connection == .suspended)
    }
}
