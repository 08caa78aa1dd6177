import Foundation

/// The graceful stop: SIGTERM/SIGINT, `requestStop()` or cancelling the task that runs `run()`
/// (docs/operations.md, "Delivery guarantees and the journal": "Graceful stop").
extension Bridge {
    /// Asks `run()` to drain and return (what SIGTERM does).
    public func requestStop() {
        stopRequested.fire()
    }

    /// SIGTERM/SIGINT: stop taking new messages, finish those in flight
    /// (bounded by `time_limit` + `expire_grace`), publish the last stats and `offline`, stop.
    ///
    /// The intake connection stops *reading* first: a message the broker sends after that is
    /// never read, so never acknowledged, and stays in the persistent session for the next
    /// start. (libmosquitto 2.0 queues a QoS 1 PUBACK before `on_message`: a message that
    /// is read is acknowledged, so it must be finished — reading on while draining could
    /// acknowledge messages the stopped pipeline never shows.) Writing goes on, so QoS 0
    /// displays still leave on that connection. The last stats and `offline` go through the
    /// output connection, which still reads its PUBACKs; the intake's clean DISCONNECT sends
    /// no will.
    func drain() async {
        let client = publisher.intake, output = publisher.output
        let budget = config.extension.timeLimit + config.extension.expireGrace + .seconds(1)
        let deadline = ContinuousClock.now + budget
        await Worker.runBlocking { [flow, logger, intake] in
            // Every message read is in flight once the read batch in progress is over.
            client.pauseReads()
            flow.conditionTimer.stop()  // no repeat starts while draining; the journal keeps their schedule
            flow.pipeline.digests.stop()  // no summary starts while draining; the journal keeps the windows
            logger.info("stopping: finishing \(flow.messagesInFlight) message(s) in flight")
            flow.waitUntilDrained(by: deadline)
            if intake.journal == nil {
                // Nothing keeps the digests' held alerts for the next start: their summaries go now.
                let summaries = flow.digests.closeAll()
                if !summaries.isEmpty {
                    logger.info("stopping: sending \(summaries.count) digest summary(ies) early (without a journal a restart would lose them)")
                    flow.sendDigests(summaries, now: flow.wall())
                }
            }
        }
        // The outputs deliver what they can within the same bound; the rest stays in the journal.
        await Worker.runBlocking { [outputs] in outputs?.drain(until: deadline) }
        pipeline.shutdown()
        attachmentSlot.service?.close()
        stats.setConnected(false)  // the last retained snapshot outlives this connection
        status.publishStats(snapshot(), through: output)
        status.publishStatus(online: false, through: output)
        // The blocking stops run on a worker thread, never on the cooperative pool.
        await Worker.runBlocking { [memoryWriter, intake] in
            memoryWriter?.stop()  // what the last messages taught the filters
            self.state?.stop()  // what Redis has not answered stays in the journal
            // The display publishes' PUBACKs finish their journal rows; then stats and offline.
            output.stop(flushTimeout: .seconds(5))
            client.stop(flushTimeout: .zero)  // its acknowledgements are no longer read
            intake.close()
        }
        logger.info("stopped")
    }
}
