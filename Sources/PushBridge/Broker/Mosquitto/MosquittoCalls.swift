import CMosquitto

/// The libmosquitto calls `MQTTClient` makes, so that the client API above this folder
/// names no C function.
extension MosquittoHandle {
    /// `true` when `topic` is a valid topic to publish to (no wildcards; `mosquitto_pub_topic_check`).
    static func isPublishTopic(_ topic: String) -> Bool {
        mosquitto_pub_topic_check(topic) == MosquittoCode.success.rawValue
    }

    /// Queues a PUBLISH (`mosquitto_publish_v5`); `mid` receives its message id.
    func publish(mid: inout Int32, topic: String, payload: [UInt8], length: Int32, qos: Int,
                 retain: Bool, properties: PropertyList?) -> MosquittoCode {
        MosquittoCode(payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(raw, &mid, topic, length, bytes.baseAddress, Int32(qos), retain, properties?.head)
        })
    }

    /// Queues a DISCONNECT with reason 0, normal disconnection (the broker discards the will).
    func disconnect() {
        _ = mosquitto_disconnect_v5(raw, 0, nil)
    }

    /// The connection's socket, or -1 when there is none.
    var socketDescriptor: Int32 { mosquitto_socket(raw) }
}
