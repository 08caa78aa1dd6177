import Dispatch
import Synchronization

/// Something due later: the one way the bridge runs work at a time ahead — the conditions'
/// repeats and escalations, the stats interval, an extension's time limit, a restart's backoff,
/// a grace period. One monotonic Dispatch timer, never a polling loop.
///
/// A timer is made idle, is given its action by `start(_:)` (once: the action can then name
/// the object that owns the timer), and runs it each time it is due: `arm(after:)` sets the
/// one time it is due (arming again moves it), `arm(every:)` makes it repeat, `disarm()`
/// leaves it idle, `cancel()` ends it for good. Every method may be called from any thread.
/// `DueTimer.after(_:_:)` is the one-shot form that nothing cancels.
package final class DueTimer: Sendable {
    /// The Dispatch source, kept active from the start (Dispatch must not release an inactive
    /// source); until `start(_:)` gives it its action, a firing does nothing.
    private let source: Mutex<DispatchSourceTimer>

    /// An idle timer whose action will run on `queue` (by default a shared concurrent one).
    package init(queue: DispatchQueue = .global()) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .distantFuture)
        timer.activate()
        source = Mutex(timer)
    }

    deinit {
        source.withLock { $0.cancel() }
    }

    /// Gives the timer its action; call it once, before the first `arm`.
    package func start(_ action: @escaping @Sendable () -> Void) {
        source.withLock { $0.setEventHandler(handler: action) }
    }

    /// Due once, `delay` from now (a negative or zero delay: at once); replaces any earlier arming.
    func arm(after delay: Duration, leeway: Duration = .zero) {
        let deadline = DispatchTime.now() + Self.clamped(delay).dispatchInterval
        source.withLock { $0.schedule(deadline: deadline, leeway: leeway.dispatchInterval) }
    }

    /// Due every `interval`, the first time one `interval` from now.
    package func arm(every interval: Duration) {
        let step = Self.clamped(interval).dispatchInterval
        source.withLock { $0.schedule(deadline: .now() + step, repeating: step) }
    }

    /// Not due until armed again.
    func disarm() {
        source.withLock { $0.schedule(deadline: .distantFuture) }
    }

    /// Never due again; the action is released.
    package func cancel() {
        source.withLock { $0.cancel() }
    }

    /// Runs `action` once, `delay` from now, on the shared queue.
    package static func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + clamped(delay).dispatchInterval, execute: action)
    }

    /// `delay` within what a Dispatch deadline holds: at least zero, at most a year.
    static func clamped(_ delay: Duration) -> Duration {
        min(max(delay, .zero), .seconds(86_400 * 365))
    }
}
