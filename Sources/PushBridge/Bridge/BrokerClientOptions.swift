/// The composition root maps the `broker:` section to the MQTT client's options: the client
/// (and its libmosquitto adapter, `Broker/Mosquitto`) knows nothing of `bridge.yml`.
extension MQTTClientOptions {
    /// Options from the `broker:` section of `bridge.yml`.
    package init(config: BrokerConfig, will: MQTTWill?, subscriptions: [MQTTSubscription]) {
        self.init(host: config.host, port: config.effectivePort, clientID: config.clientID,
                  protocolVersion: config.protocolVersion, keepalive: config.keepalive,
                  cleanStart: config.cleanStart, sessionExpiry: config.sessionExpiry,
                  username: config.username, password: config.password, tls: config.tls,
                  reconnectMin: config.reconnectMin, reconnectMax: config.reconnectMax,
                  will: will, subscriptions: subscriptions)
    }
}
