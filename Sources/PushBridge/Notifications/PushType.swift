/// The APNs push types (`apns-push-type`).
public enum PushType: String, Sendable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm
    case liveactivity, pushtotalk, widgets, controls

    /// Largest APNs JSON body in bytes: 5120 for `voip`, 4096 otherwise.
    var maxBodyBytes: Int { self == .voip ? 5120 : 4096 }
}

/// Why a request was rejected: APNs' own reasons plus pushbridge's two.
package enum RejectReason: String, Sendable, CaseIterable, Error {
    case badCollapseId = "BadCollapseId"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case invalidPushType = "InvalidPushType"
    case payloadEmpty = "PayloadEmpty"
    case payloadTooLarge = "PayloadTooLarge"
    case invalidPayload = "InvalidPayload"
    case templateError = "TemplateError"
}

/// A rejection with a human-readable detail.
package struct Rejection: Error, Sendable, Equatable {
    package var reason: RejectReason
    package var detail: String
    init(_ reason: RejectReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }
}
