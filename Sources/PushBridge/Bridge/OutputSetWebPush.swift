/// The monitoring server's Web Push side for the bridge's `webpush` output (here, above both
/// layers: the output is the Outputs layer's, the endpoints the Monitoring layer's).
extension OutputSet {
    /// The `/subscribe` page, VAPID key and subscription API of the `webpush` output, over its
    /// subscription store; `nil` without one.
    func webPushEndpoints(logger: BridgeLogger) -> WebPushEndpoints? {
        guard let w = webPush else { return nil }
        let name = w.name
        return WebPushEndpoints(store: w.fanOut.store, publicKey: w.fanOut.vapid.publicKey, token: w.config.subscribeToken,
                                people: people?.board.people.map(\.name) ?? [],
                                log: { logger.info("output '\(name)': \($0)") })
    }
}
