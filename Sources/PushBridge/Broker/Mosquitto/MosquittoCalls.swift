import CMosquitto

/// The libmosquitto calls `MQTTClient` makes, so that the client API above this folder
/// names no C function.
extension MosquittoHandle {
    /// `true` when `topic` is a valid topic to publish to (no wildcards; `mosquitto_pub_topic_check`).
    ///
    /// The C strings here come from `withCString`, which lends a native string's own bytes;
    /// the implicit `String` → `const char *` conversion built a `ContiguousArray` copy per
    /// call (`utf8CString`, ~215 instructions).
    static func isPublishTopic(_ topic: String) -> Bool {
        topic.withCString { mosquitto_pub_topic_check($0) } == MosquittoCode.success.rawValue
    }

    /// Queues a PUBLISH (`mosquitto_publish_v5`); `mid` receives its message id. `topic` nil:
    /// the topic alias in `properties` alone names it (`TopicAliases`).
    func publish(mid: inout Int32, topic: String?, payload: [UInt8], length: Int32, qos: Int,
                 retain: Bool, properties: PropertyList?) -> MosquittoCode {
        let raw = self.raw
        return MosquittoCode(payload.withUnsafeBytes { bytes in
            guard let topic else {
                return mosquitto_publish_v5(raw, &mid, nil, length, bytes.baseAddress, Int32(qos), retain, properties?.head)
            }
            return topic.withCString { name in
                mosquitto_publish_v5(raw, &mid, name, length, bytes.baseAddress, Int32(qos), retain, properties?.head)
            }
        })
    }

    /// Queues a DISCONNECT with reason 0, normal disconnection (the broker discards the will).
    func disconnect() {
        _ = mosquitto_disconnect_v5(raw, 0, nil)
    }

    /// The connection's socket, or -1 when there is none.
    var socketDescriptor: Int32 { mosquitto_socket(raw) }
}
