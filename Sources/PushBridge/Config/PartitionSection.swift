/// `partition: {index: I, count: N}` (docs/operations.md, "Scaling out"): this replica's share of the topics.
package struct PartitionConfig: Sendable, Equatable {
    /// This replica, from 0 to `count` - 1.
    package var index: Int
    /// How many replicas share the topics.
    package var count: Int
    /// The largest `count` accepted (more replicas than this would not be a deployment).
    static let maxCount = 65_536
}

extension ConfigReader {
    static let partitionKeys = ConfigReference.keys(in: "partition")

    /// Reads `partition:`; every problem is reported, positioned at its value.
    func readPartition(_ node: YAMLNode) -> PartitionConfig? {
        guard let f = fields(node, key: "partition", context: "partition", known: Self.partitionKeys) else { return nil }
        let count = required(f, "count", in: "partition").flatMap {
            int(Self.unquotingSubstitution($0), key: "count", range: 1...PartitionConfig.maxCount)
        }
        guard let indexNode = required(f, "index", in: "partition"),
              let index = int(Self.unquotingSubstitution(indexNode), key: "index", range: 0...Int.max) else { return nil }
        guard let count else { return nil }
        guard index < count else {
            error("'index' must be between 0 and \(count - 1) (partition count \(count)), got \(index)", at: indexNode.mark)
            return nil
        }
        return PartitionConfig(index: index, count: count)
    }

    /// A quoted scalar written as one `${NAME}` reference (`index: "${REPLICA}"`) reads as
    /// the plain text the variable gave, so a number from the environment is a number
    /// however the reference was quoted. Anything else is returned as it is.
    static func unquotingSubstitution(_ node: YAMLNode) -> YAMLNode {
        guard case .scalar(var s) = node, s.style.isQuoted, !s.forcedString,
              s.original.hasPrefix("${"), s.original.hasSuffix("}"),
              s.original.dropFirst(2).allSatisfy({ $0 != "$" }) else { return node }
        s.style = .plain
        return .scalar(s)
    }
}
