import Foundation
import Testing
@testable import PushBridge

/// The page the binary serves is exactly dashboard/ (Sources/PushBridge/Monitoring/DashboardAssets.swift
/// is generated from it by scripts/embed-dashboard.py) and refers to nothing elsewhere.
@Suite("Dashboard assets")
struct DashboardAssetsTests {
    static let stale = "Sources/PushBridge/Monitoring/DashboardAssets*.swift are stale: run `python3 scripts/embed-dashboard.py`"

    func file(_ name: String) throws -> String {
        try String(contentsOfFile: repositoryRoot + "/dashboard/" + name, encoding: .utf8)
    }

    @Test func theEmbeddedFilesAreTheFilesInDashboard() throws {
        #expect(DashboardAssets.indexHTML == (try file("index.html")), "\(Self.stale)")
        #expect(DashboardAssets.dashboardCSS == (try file("dashboard.css")), "\(Self.stale)")
        #expect(DashboardAssets.dashboardJS == (try file("dashboard.js")), "\(Self.stale)")
        let listed = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/dashboard").sorted()
        #expect(listed == ["dashboard.css", "dashboard.js", "index.html"], "a file in dashboard/ is not embedded")
    }

    @Test func thePageIsSelfContained() {
        let page = DashboardEndpoints.page
        #expect(!page.contains("/*@DASHBOARD_CSS@*/") && !page.contains("/*@DASHBOARD_JS@*/"))
        #expect(page.contains("EventSource(\"api/events\")"))
        for marker in ["http://", "https://", "src=", "<link", "@import", "url("] {
            #expect(!page.contains(marker), "the page refers to something elsewhere: \(marker)")
        }
        #expect(DashboardEndpoints.contentSecurityPolicy.hasPrefix("default-src 'none'"))
    }

    @Test func routes() throws {
        let endpoints = DashboardEndpoints(feed: DecisionFeed(includeText: false, traceTopic: nil),
                                           snapshot: { Array(#"{"version":"x"}"#.utf8) })
        let page = try #require(endpoints.respond(path: "/"))
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        #expect(page.headers.contains { $0.0 == "Content-Security-Policy" })
        let stats = try #require(endpoints.respond(path: "/api/stats"))
        #expect(stats.body == #"{"version":"x"}"# && stats.contentType == "application/json")
        #expect(endpoints.respond(path: "/nope") == nil)
    }
}
