import Testing
@testable import PushBridge

@Test func linksLibmosquitto() {
    #expect(mosquittoLibraryVersion().hasPrefix("2."))
}
