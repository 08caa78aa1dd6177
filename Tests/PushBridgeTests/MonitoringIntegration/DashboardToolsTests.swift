import Foundation
import Testing
@testable import PushBridge

/// The monitoring surface checked with the real tools people point at it: a real Prometheus
/// evaluating every PromQL expression of the Grafana dashboard and the alert rules
/// (integration/monitoring/run.sh), and the dashboard page in headless Chromium driven by selenium
/// (integration/browser/dashboard_test.py). Both start their own mosquitto and bridge, at nice 10:
/// Chromium and Prometheus are heavy, and the suite's timing-sensitive tests run beside them.
@Suite("Monitoring integration: Prometheus, Grafana and the browser", .serialized)
struct DashboardToolsTests {
    /// The selenium virtualenv `make test-deps` creates (outside the repository).
    static var seleniumPython: String {
        ProcessInfo.processInfo.environment["PUSHBRIDGE_SELENIUM_PYTHON"]
            ?? "/var/cache/pushbridge-test/selenium-venv/bin/python"
    }

    @Test("a real Prometheus scrapes the bridge; promtool accepts the rules; every dashboard and rule expression returns series")
    func prometheusEvaluatesEveryExpression() async throws {
        let p = try ManagedProcess("/usr/bin/nice", ["-n", "10", "/bin/bash", repositoryRoot + "/integration/monitoring/run.sh", PushbridgeBinary.path])
        let result = await p.waitForExit(timeout: .seconds(300))
        let r = try #require(result, "integration/monitoring/run.sh did not finish in 300 s")
        #expect(r.status == 0, "integration/monitoring/run.sh failed:\n\(r.stdout.suffix(6000))\n\(r.stderr.suffix(4000))")
        #expect(r.stdout.contains("monitoring: 1 passed, 0 failed"), "\(r.stdout.suffix(2000))")
        #expect(r.stdout.contains("expressions: ") && !r.stdout.contains("FAIL"), "\(r.stdout.suffix(4000))")
    }

    @Test("the dashboard in headless Chromium: counts, decisions, topic filter, keyboard sorting, connection state, no JS errors")
    func dashboardInABrowser() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.seleniumPython) else {
            Issue.record("\(Self.seleniumPython) is missing: run `make test-deps` (creates the selenium virtualenv)")
            return
        }
        let artifacts = repositoryRoot + "/.build/test-artifacts"
        let p = try ManagedProcess("/usr/bin/nice", ["-n", "10", Self.seleniumPython,
                                                     repositoryRoot + "/integration/browser/dashboard_test.py", PushbridgeBinary.path, artifacts])
        let result = await p.waitForExit(timeout: .seconds(400))
        let r = try #require(result, "integration/browser/dashboard_test.py did not finish in 400 s")
        #expect(r.status == 0, "integration/browser/dashboard_test.py failed:\n\(r.stdout.suffix(6000))\n\(r.stderr.suffix(6000))")
        #expect(r.stdout.contains(" passed, 0 failed"), "\(r.stdout.suffix(3000))")
        #expect(FileManager.default.fileExists(atPath: artifacts + "/dashboard.png"), "no screenshot saved")
    }
}
