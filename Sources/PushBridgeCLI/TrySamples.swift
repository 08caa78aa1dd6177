import Foundation
import PushBridge
import Synchronization

/// One line of a samples file (`pushbridge try --samples`), with the directives in force.
package struct TrySample: Sendable, Equatable {
    /// 1-based line number in the file.
    package var line: Int
    package var topic: String
    package var payload: String
    /// `#@ retain` on the line before: it arrives as retained state.
    package var retain = false
    /// `#@ at TIME`: when it arrives, as written (`22:30` or `2026-03-04T22:30`); `nil`
    /// before the first `#@ at`.
    package var at: String? = nil
    /// `#@ env NAME=VALUE` lines so far: the config is reloaded with them set.
    package var environment: [String: String] = [:]
    /// `#@ attach NAME=FILE` lines just before it: bytes for its attachment `NAME` (the
    /// file's path as resolved against the samples file's folder).
    package var attach: [String: String] = [:]

    package init(line: Int, topic: String, payload: String) {
        self.line = line
        self.topic = topic
        self.payload = payload
    }
}

/// A malformed samples file, located as `path:line`.
package struct TrySampleError: Error, CustomStringConvertible, Sendable {
    package var description: String
}

/// `pushbridge try --samples` and `--at`: samples through ONE pipeline in file order, with
/// the `#@ at`, `#@ env` and `#@ retain` directives (docs/cli.md, "pushbridge try"). The recipe tests use
/// the same code, so a user and the tests see the same outcomes.
package enum TrySamples {
    /// The samples of `text`: `topic<TAB>payload` lines; blank lines and `#` comments are
    /// skipped; `#@ at TIME` and `#@ env NAME=VALUE` stay in force until changed, `#@ retain`
    /// applies to the next sample.
    package static func parse(_ text: String, path: String) throws(TrySampleError) -> [TrySample] {
        var out: [TrySample] = []
        var at: String?
        var environment: [String: String] = [:]
        var retainNext = false
        var attachNext: [String: String] = [:]
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) + "/" : ""
        // "\r\n" is one Character in Swift: both line ends split.
        for (index, line) in text.split(omittingEmptySubsequences: false,
                                        whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let here = "\(path):\(index + 1)"
            if line.hasPrefix("#@") {
                let words = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: true)
                switch (words.first, words.count) {
                case ("at"?, 2):
                    guard SampleTime.isValid(String(words[1])) else {
                        throw TrySampleError(description: "\(here): error: '#@ at' needs HH:MM or YYYY-MM-DDTHH:MM, got '\(words[1])'")
                    }
                    at = String(words[1])
                case ("env"?, 2):
                    let pair = words[1].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2, !pair[0].isEmpty else {
                        throw TrySampleError(description: "\(here): error: '#@ env' needs NAME=VALUE, got '\(words[1])'")
                    }
                    environment[String(pair[0])] = String(pair[1])
                case ("retain"?, 1):
                    retainNext = true
                case ("attach"?, 2):
                    let pair = words[1].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else {
                        throw TrySampleError(description: "\(here): error: '#@ attach' needs NAME=FILE, got '\(words[1])'")
                    }
                    attachNext[String(pair[0])] = pair[1].hasPrefix("/") ? String(pair[1]) : folder + pair[1]
                default:
                    throw TrySampleError(description: "\(here): error: unknown directive '\(line)'; known: '#@ at TIME', '#@ env NAME=VALUE', '#@ retain', '#@ attach NAME=FILE'")
                }
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t"), tab != line.startIndex else {
                throw TrySampleError(description: "\(here): error: expected topic<TAB>payload")
            }
            var sample = TrySample(line: index + 1, topic: String(line[..<tab]),
                                   payload: String(line[line.index(after: tab)...]))
            sample.retain = retainNext
            sample.at = at
            sample.environment = environment
            sample.attach = attachNext
            retainNext = false
            attachNext = [:]
            out.append(sample)
        }
        if retainNext {
            throw TrySampleError(description: "\(path): error: '#@ retain' at the end applies to no sample")
        }
        if !attachNext.isEmpty {
            throw TrySampleError(description: "\(path): error: '#@ attach' at the end applies to no sample")
        }
        return out
    }

    /// `NAME=FILE` (`--attach`): the attachment's identifier and the file's bytes.
    package static func readAttachment(_ text: String) -> Result<(name: String, bytes: [UInt8]), TrySampleError> {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex else {
            return .failure(TrySampleError(description: "--attach needs NAME=FILE (an attachment's identifier and a file), got '\(text)'"))
        }
        let file = String(text[text.index(after: eq)...])
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(TrySampleError(description: "cannot read attachment file '\(file)'"))
        }
        return .success((String(text[..<eq]), Array(data)))
    }

    /// The attachment service of an offline run (`try`): a private temporary store, bytes
    /// from `--attach` only; `nil` when no route has attachments.
    package static func offlineAttachments(for config: BridgeConfig) throws -> AttachmentService? {
        guard AttachmentService.needed(by: config) else { return nil }
        // Never the running bridge's store in the journal's folder.
        return try AttachmentService(config: config, directory: AttachmentService.temporaryDirectory(), temporary: true, offline: true)
    }

    /// Runs samples through one pipeline, reloading the config (keeping the memory of
    /// unchanged filters, as SIGHUP does) whenever `#@ env` changes the environment.
    package final class Runner {
        private let configPath: String
        private let baseEnvironment: [String: String]
        private let logger: BridgeLogger
        private let serviceExtension: ExtensionFactory?
        private let day: Date
        private let defaultTime: Double?
        private let clock = SampleClock()
        private let memory = FilterMemory()
        /// The conditions, kept across `#@ env` reloads like the filter memory.
        private let conditions: ConditionEngine
        private var pipeline: Pipeline?
        private var environment: [String: String]?
        /// The offline attachment store, made with the first config that has attachments.
        private var attachments: AttachmentService?
        /// What the routes' `lookup:` entries read: the samples on their topics, kept across reloads.
        private let lookups = LookupStore()
        /// When the last sample arrived (UNIX seconds).
        private var lastTime: Double?

        /// `baseEnvironment` is what `#@ env` adds to (the process's for `try`); `day` is
        /// the date a `#@ at HH:MM` falls on; `defaultTime` (UNIX seconds) is when samples
        /// before the first `#@ at` arrive (`nil`: the real time).
        package init(configPath: String, baseEnvironment: [String: String], logger: BridgeLogger,
                    serviceExtension: ExtensionFactory? = nil, day: Date = Date(), defaultTime: Double? = nil) {
            self.configPath = configPath
            self.baseEnvironment = baseEnvironment
            self.logger = logger
            self.serviceExtension = serviceExtension
            self.day = day
            self.defaultTime = defaultTime
            conditions = ConditionEngine(logger: logger)
        }

        deinit {
            pipeline?.shutdown()
            attachments?.close()
        }

        /// The decision for `sample` and the message it became, or the errors of the
        /// config it needed (re)loaded.
        package func decide(_ sample: TrySample) -> Result<(decision: Decision, message: InboundMessage, handedOn: [Decision]), ConfigErrors> {
            if pipeline == nil || sample.environment != environment {
                var env = baseEnvironment
                for (k, v) in sample.environment { env[k] = v }
                switch ConfigLoader.load(path: configPath, environment: env) {
                case .failure(let errors): return .failure(errors)
                case .success(let config):
                    pipeline?.shutdown()
                    if let attachments {
                        attachments.configure(config)
                    } else {
                        attachments = try? TrySamples.offlineAttachments(for: config)
                    }
                    pipeline = Pipeline(config: config, logger: logger, serviceExtension: serviceExtension,
                                        memory: memory, clock: clock.stageClock, conditions: conditions,
                                        attachments: attachments, lookups: lookups)
                    environment = sample.environment
                }
            }
            let now = time(of: sample)
            clock.set(now)
            lastTime = now
            var supplied: [String: (bytes: [UInt8], file: String)] = [:]
            for (name, file) in sample.attach {
                // An unreadable file supplies nothing: the attachment is reported missing.
                if let data = FileManager.default.contents(atPath: file) { supplied[name] = (Array(data), file) }
            }
            attachments?.supplied.withLock { $0 = supplied }
            let message = InboundMessage(topic: sample.topic, payload: Array(sample.payload.utf8), qos: 1,
                                         retain: sample.retain, receivedAt: now)
            var decisions = TryRunner.chain(pipeline: pipeline!, message: message, now: now)
            let last = decisions.removeLast()
            return .success((last, message, decisions))
        }

        /// When `sample` arrives (UNIX seconds).
        func time(of sample: TrySample) -> Double {
            sample.at.flatMap { SampleTime.unixSeconds($0, day: day) } ?? defaultTime ?? Date().timeIntervalSince1970
        }

        /// The conditions' repeats and escalation steps due before `sample` arrives, in time
        /// order, each decided at its due time (so a `#@ at` that moves the clock shows them).
        package func conditionsDue(before sample: TrySample) -> [(decision: Decision, message: InboundMessage, at: Double)] {
            conditionsDue(until: time(of: sample))
        }

        /// What the last sample left due at its own time (the announcement of conditions
        /// that a parent's clear ended superseding), so it shows after it.
        package func conditionsDueAfterLast() -> [(decision: Decision, message: InboundMessage, at: Double)] {
            lastTime.map(conditionsDue(until:)) ?? []
        }

        /// The repeats, steps and announcements due up to `until` (UNIX seconds), in time order.
        private func conditionsDue(until: Double) -> [(decision: Decision, message: InboundMessage, at: Double)] {
            guard let pipeline else { return [] }
            var out: [(decision: Decision, message: InboundMessage, at: Double)] = []
            while let due = conditions.nextDue, due <= until, out.count < 10_000 {
                clock.set(due)
                for work in conditions.due(now: due) {
                    guard let step = pipeline.conditionNotification(work, now: due) else { continue }
                    let decision = TryRunner.wait(step)
                    if case .repeat = work.kind {
                        conditions.repeatFinished(route: work.record.route, key: work.record.key,
                                                  alertID: work.record.alertID, delivered: decision.outcome == .delivered)
                    }
                    out.append((decision, InboundMessage(topic: work.record.topic, payload: work.record.payload,
                                                         qos: work.record.qos, receivedAt: due), due))
                }
            }
            return out
        }

    }
}

/// `--at` and `#@ at` times: `HH:MM` on a given day, or `YYYY-MM-DDTHH:MM`, local time.
package enum SampleTime {
    /// `true` when `text` is one of the two forms.
    static func isValid(_ text: String) -> Bool { unixSeconds(text, day: Date()) != nil }

    /// UNIX seconds of `text` in the local time zone; `HH:MM` falls on `day`.
    package static func unixSeconds(_ text: String, day: Date) -> Double? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        var parts: DateComponents
        let pieces = text.split(separator: "T", omittingEmptySubsequences: false)
        switch pieces.count {
        case 1:
            parts = calendar.dateComponents([.year, .month, .day], from: day)
        case 2:
            let ymd = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
            guard ymd.count == 3, ymd[0].count == 4, ymd[1].count == 2, ymd[2].count == 2,
                  let y = Int(ymd[0]), let m = Int(ymd[1]), let d = Int(ymd[2]),
                  (1...12).contains(m), (1...31).contains(d) else { return nil }
            parts = DateComponents(year: y, month: m, day: d)
        default:
            return nil
        }
        let hm = pieces.last!.split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, let h = Int(hm[0]), let mm = Int(hm[1]),
              (0...23).contains(h), (0...59).contains(mm) else { return nil }
        parts.hour = h
        parts.minute = mm
        guard let date = calendar.date(from: parts),
              calendar.component(.day, from: date) == parts.day else { return nil }  // no 02-31
        return date.timeIntervalSince1970
    }
}

/// The stage clock of a samples run: it reads the time the current sample arrives, so
/// `quiet_hours`, `dedupe` and `rate_limit` windows follow `#@ at` (and `--at`).
final class SampleClock: Sendable {
    private let now = Mutex<Double>(Date().timeIntervalSince1970)

    func set(_ seconds: Double) { now.withLock { $0 = seconds } }

    var stageClock: StageClock {
        StageClock(monotonic: { [self] in .milliseconds(Int64((read() * 1000).rounded())) },
                   wall: { [self] in read() })
    }

    private func read() -> Double {
        now.withLock { $0 }
    }
}
