extension NotificationRequest {
    /// Room for one `"key":` of the `aps` dictionary (the longest key is 18 bytes) and its comma.
    private static let apsMemberOverhead = 24

    /// An upper bound of the size of `apnsBody`'s JSON text, without building it.
    ///
    /// Validation needs the exact size only when this bound passes the limit.
    var apnsBodySizeBound: Int {
        let c = content
        let member = Self.apsMemberOverhead
        // {"aps":{"alert":{}}} and commas
        var total = 32
        total += c.textSizeBound(perText: member)
        if c.soundCritical || c.soundVolume != nil { total += 64 }  // {"critical":1,"name":,"volume":}
        if c.badge != nil { total += member + 20 }
        if c.relevanceScore != nil { total += member + 32 }
        if contentAvailable { total += member + 1 }
        if mutableContent { total += member + 1 }
        if let bound = c.userInfoSizeBound {
            // The whole object's text bounds its members beside `aps` (each with its comma).
            total += bound
        } else if case .object(let custom) = c.userInfo {
            // The members read in place (no copy of each key and value).
            custom.withMembers { members in
                // The count first: `!=` on two different strings costs a comparison call.
                for i in members.indices where members[i].key.utf8.count != 3 || members[i].key != "aps" {
                    total += JSONValue.stringSizeBound(members[i].key) + members[i].value.jsonSizeBound + 2
                }
            }
        }
        return total
    }
}
