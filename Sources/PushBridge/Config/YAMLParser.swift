import CYaml

/// The parsed document: the root node (nil for an empty file) and non-fatal problems.
struct YAMLDocument: Sendable {
    var root: YAMLNode?
    /// Duplicate keys, unknown aliases, merge keys: reported, the rest still usable.
    var problems: [YAMLSyntaxError]
}

/// Builds `YAMLNode` trees from libyaml's event API.
///
/// Anchors and aliases are supported (an alias is a copy of the anchored node); merge keys
/// (`<<`) are not. Duplicate keys are reported here, since libyaml accepts them.
enum YAMLParser {
    /// Parses `text`; a syntax error stops the parse and is returned alone.
    static func parse(_ text: String) -> Result<YAMLDocument, YAMLSyntaxError> {
        // yaml_parser_t points into itself: it must not move, so it lives on the heap.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            return .failure(YAMLSyntaxError(message: "cannot initialise the YAML parser", mark: nil))
        }
        defer { yaml_parser_delete(parser) }
        let bytes = Array(text.utf8)
        // The input buffer is borrowed by libyaml: keep it alive for the whole parse.
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
            yaml_parser_set_input_string(parser, base, buffer.count)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(parser, &event) == 1 else {
                    return .failure(syntaxError(parser))
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                builder.consume(&event)
            }
            return .success(YAMLDocument(root: builder.root, problems: builder.problems))
        }
    }

    private static func syntaxError(_ parser: UnsafeMutablePointer<yaml_parser_t>) -> YAMLSyntaxError {
        let p = parser.pointee
        let problem = p.problem.map { String(cString: $0) } ?? "invalid YAML"
        var message = problem
        if let context = p.context {
            message = "\(problem) \(String(cString: context))"
        }
        let mark = YAMLMark(line: Int(p.problem_mark.line), column: Int(p.problem_mark.column))
        return YAMLSyntaxError(message: message, mark: mark)
    }
}

/// Turns the event stream into a tree (one document; later documents are reported).
private struct TreeBuilder {
    private enum Frame {
        case mapping(pairs: [YAMLPair], key: YAMLNode?, seen: [String: Int], mark: YAMLMark, anchor: String?)
        case sequence(items: [YAMLNode], mark: YAMLMark, anchor: String?)
    }

    private var stack: [Frame] = []
    private var anchors: [String: YAMLNode] = [:]
    private var documents = 0
    private(set) var root: YAMLNode?
    private(set) var problems: [YAMLSyntaxError] = []

    mutating func consume(_ event: inout yaml_event_t) {
        let mark = YAMLMark(line: Int(event.start_mark.line), column: Int(event.start_mark.column))
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents == 2 {
                problems.append(YAMLSyntaxError(message: "only one YAML document is allowed", mark: mark))
            }
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let value = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
            let tag = s.tag.map { String(cString: $0) }
            let scalar = YAMLScalar(value: value, style: Self.style(s.style), mark: mark,
                                    forcedString: tag == "tag:yaml.org,2002:str")
            add(.scalar(scalar), anchor: s.anchor.map { String(cString: $0) })
        case YAML_ALIAS_EVENT:
            let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
            if let node = anchors[name] {
                add(node, anchor: nil)
            } else {
                problems.append(YAMLSyntaxError(message: "unknown alias '*\(name)'", mark: mark))
                add(.scalar(YAMLScalar(value: "", style: .plain, mark: mark)), anchor: nil)
            }
        case YAML_SEQUENCE_START_EVENT:
            stack.append(.sequence(items: [], mark: mark,
                                   anchor: event.data.sequence_start.anchor.map { String(cString: $0) }))
        case YAML_MAPPING_START_EVENT:
            stack.append(.mapping(pairs: [], key: nil, seen: [:], mark: mark,
                                  anchor: event.data.mapping_start.anchor.map { String(cString: $0) }))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            switch stack.removeLast() {
            case .sequence(let items, let m, let anchor): add(.sequence(items, mark: m), anchor: anchor)
            case .mapping(let pairs, _, _, let m, let anchor): add(.mapping(pairs, mark: m), anchor: anchor)
            }
        default:
            break
        }
    }

    private mutating func add(_ node: YAMLNode, anchor: String?) {
        if let anchor { anchors[anchor] = node }
        guard let top = stack.popLast() else {
            if documents <= 1 { root = node }
            return
        }
        switch top {
        case .sequence(var items, let m, let a):
            items.append(node)
            stack.append(.sequence(items: items, mark: m, anchor: a))
        case .mapping(var pairs, let key, var seen, let m, let a):
            if let key {
                pairs.append(YAMLPair(key: key, value: node))
                stack.append(.mapping(pairs: pairs, key: nil, seen: seen, mark: m, anchor: a))
                return
            }
            if case .scalar(let k) = node {
                if k.style == .plain && k.value == "<<" {
                    problems.append(YAMLSyntaxError(message: "YAML merge keys ('<<') are not supported", mark: k.mark))
                } else if let first = seen[k.value] {
                    problems.append(YAMLSyntaxError(
                        message: "duplicate key '\(k.value)' (first at line \(first + 1))", mark: k.mark))
                } else {
                    seen[k.value] = k.mark.line
                }
            }
            stack.append(.mapping(pairs: pairs, key: node, seen: seen, mark: m, anchor: a))
        }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }
}
