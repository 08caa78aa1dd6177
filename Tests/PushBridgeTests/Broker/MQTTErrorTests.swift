import CMosquitto
import Foundation
import Testing
@testable import PushBridge

@Suite struct MQTTErrorTests {
    @Test func successDoesNotThrow() throws {
        try MQTTError.check(0)
    }

    @Test func noConnectionBecomesNotConnected() {
        #expect(throws: MQTTError.notConnected) { try MQTTError.check(Int32(MOSQ_ERR_NO_CONN.rawValue)) }
    }

    @Test func otherCodesCarryTheLibraryText() {
        let rc = Int32(MOSQ_ERR_INVAL.rawValue)
        let text = String(cString: mosquitto_strerror(rc))
        #expect(!text.isEmpty)
        #expect(throws: MQTTError.library(code: rc, message: text)) { try MQTTError.check(rc) }
        #expect(MQTTError.library(code: rc, message: text).description == "\(text) (mosquitto error \(rc))")
    }

    @Test func errnoCodeDescribesTheSystemError() {
        errno = ECONNREFUSED
        #expect(MosquittoCode.errno.description == String(cString: strerror(ECONNREFUSED)))
    }

    @Test func descriptionsNameTheProblem() {
        #expect(MQTTError.invalidTopic("a/+").description == "invalid topic 'a/+'")
        #expect(MQTTError.invalidTopicFilter("a/#/b").description == "invalid topic filter 'a/#/b'")
        #expect(MQTTError.invalidQoS(3).description == "invalid QoS 3 (must be 0, 1 or 2)")
        #expect(MQTTError.payloadTooLarge(300_000_000).description.contains("300000000"))
        #expect(MQTTError.notConnected.description == "not connected to the broker")
        #expect(MQTTError.userPropertiesRequireMQTT5.description == "user properties need MQTT 5")
        #expect(MQTTError.invalidOption("port 0").description == "invalid option: port 0")
    }

    @Test func libraryLevelsMapToOurs() {
        #expect(MosquittoCallbacks.logLevel(MOSQ_LOG_ERR) == .error)
        #expect(MosquittoCallbacks.logLevel(MOSQ_LOG_WARNING) == .warning)
        #expect(MosquittoCallbacks.logLevel(MOSQ_LOG_NOTICE) == .info)
        #expect(MosquittoCallbacks.logLevel(MOSQ_LOG_INFO) == .info)
        #expect(MosquittoCallbacks.logLevel(MOSQ_LOG_DEBUG) == .debug)
    }
}
