import Foundation
import Testing
@testable import PushBridge

/// The page the binary serves is exactly dashboard/ (DashboardAssetsPlugin compiles its files into
/// the module at build time) and refers to nothing elsewhere.
@Suite("Dashboard assets")
struct DashboardAssetsTests {
    static let differs = "the embedded file differs from dashboard/ (Plugins/DashboardAssetsPlugin, Sources/dashboard-assets)"

    func file(_ name: String) throws -> String {
        try String(contentsOfFile: repositoryRoot + "/dashboard/" + name, encoding: .utf8)
    }

    @Test func theEmbeddedFilesAreTheFilesInDashboard() throws {
        #expect(DashboardAssets.indexHTML == (try file("index.html")), "\(Self.differs)")
        #expect(DashboardAssets.dashboardCSS == (try file("dashboard.css")), "\(Self.differs)")
        #expect(DashboardAssets.dashboardJS == (try file("dashboard.js")), "\(Self.differs)")
        #expect(DashboardAssets.subscribeHTML == (try file("subscribe.html")), "\(Self.differs)")
        #expect(DashboardAssets.serviceWorkerJS == (try file("sw.js")), "\(Self.differs)")
        #expect(DashboardAssets.manifest == (try file("manifest.webmanifest")), "\(Self.differs)")
        #expect(DashboardAssets.iconSVG == (try file("icon.svg")), "\(Self.differs)")
        for (bytes, name) in [(DashboardAssets.icon192PNG, "icon-192.png"), (DashboardAssets.icon512PNG, "icon-512.png")] {
            #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/dashboard/" + name))), "\(Self.differs)")
        }
        let listed = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/dashboard").sorted()
        #expect(listed == ["dashboard.css", "dashboard.js", "icon-192.png", "icon-512.png", "icon.svg", "index.html",
                           "manifest.webmanifest", "subscribe.html", "sw.js"], "a file in dashboard/ is not embedded")
    }

    /// What `/` serves is dashboard/index.html as it is on disk, with dashboard.css and
    /// dashboard.js from disk in place of their markers.
    @Test func theServedPageIsTheFilesOnDisk() throws {
        let endpoints = DashboardEndpoints(feed: DecisionFeed(includeText: false, traceTopic: nil), snapshot: { [] })
        let page = try #require(endpoints.respond(path: "/"))
        let html = try file("index.html")
        let css = try #require(html.range(of: "/*@DASHBOARD_CSS@*/"))
        let expected = html.replacingCharacters(in: css, with: try file("dashboard.css"))
        let js = try #require(expected.range(of: "/*@DASHBOARD_JS@*/"))
        #expect(page.body == expected.replacingCharacters(in: js, with: try file("dashboard.js")))
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

    /// The subscribe page and its service worker load nothing from elsewhere (the SVG's only
    /// URL is its XML namespace, which is no fetch).
    @Test func theSubscribePageIsSelfContained() throws {
        for (name, text) in [("subscribe.html", DashboardAssets.subscribeHTML), ("sw.js", DashboardAssets.serviceWorkerJS),
                             ("manifest.webmanifest", DashboardAssets.manifest)] {
            for marker in ["http://", "https://", "@import", "url(", "//cdn", "importScripts"] {
                #expect(!text.contains(marker), "\(name) refers to something elsewhere: \(marker)")
            }
        }
        #expect(DashboardAssets.iconSVG.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
            .range(of: "http") == nil)
        let manifest = try JSONValue.parse(DashboardAssets.manifest)
        #expect(manifest["name"] != nil && manifest["start_url"] != nil && manifest["icons"] != nil)
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
        let icon = try #require(endpoints.respond(path: "/favicon.ico"))
        #expect(icon.status == 200 && icon.contentType == "image/png")
    }
}
