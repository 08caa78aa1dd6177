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
    /// The deepest nesting of mappings and lists accepted, aliases included (a config
    /// needs a handful). Deeper input is an error, so later recursive walks stay shallow.
    static let maximumDepth = 100

    /// The most nodes the document may hold once every alias is expanded. Later walks copy
    /// aliased subtrees, so an alias bomb ("billion laughs") is refused here, cheaply.
    static let maximumNodes = 100_000

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
                if let fatal = builder.fatal { return .failure(fatal) }
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
    /// An open mapping or sequence. A struct mutated in place on the stack, so adding a
    /// child never copies the children before it (no quadratic cost for long lists).
    private struct Frame {
        let isMapping: Bool
        let mark: YAMLMark
        let anchor: String?
        var items: [YAMLNode] = []
        var pairs: [YAMLPair] = []
        var key: YAMLNode?
        var seen: [String: Int] = [:]
        /// The height of the highest child so far.
        var height = 0
        /// Nodes in this subtree so far, itself included (aliases expanded).
        var size = 1
    }

    private var stack: [Frame] = []
    private var anchors: [String: (node: YAMLNode, height: Int, size: Int)] = [:]
    private var documents = 0
    private(set) var root: YAMLNode?
    private(set) var problems: [YAMLSyntaxError] = []
    /// Nodes in the document so far, aliases counted as the nodes they copy.
    private var expandedNodes = 0
    /// A problem that ends the parse (nesting too deep, too many nodes).
    private(set) var fatal: YAMLSyntaxError?

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
            count(1, at: mark)
            add(.scalar(scalar), height: 1, size: 1, anchor: s.anchor.map { String(cString: $0) }, at: mark)
        case YAML_ALIAS_EVENT:
            let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
            if let anchored = anchors[name] {
                count(anchored.size, at: mark)
                add(anchored.node, height: anchored.height, size: anchored.size, anchor: nil, at: mark)
            } else {
                problems.append(YAMLSyntaxError(message: "unknown alias '*\(name)'", mark: mark))
                add(.scalar(YAMLScalar(value: "", style: .plain, mark: mark)), height: 1, size: 1, anchor: nil, at: mark)
            }
        case YAML_SEQUENCE_START_EVENT where stack.count >= YAMLParser.maximumDepth,
             YAML_MAPPING_START_EVENT where stack.count >= YAMLParser.maximumDepth:
            fatal = tooDeep(mark)
        case YAML_SEQUENCE_START_EVENT:
            count(1, at: mark)
            stack.append(Frame(isMapping: false, mark: mark,
                               anchor: event.data.sequence_start.anchor.map { String(cString: $0) }))
        case YAML_MAPPING_START_EVENT:
            count(1, at: mark)
            stack.append(Frame(isMapping: true, mark: mark,
                               anchor: event.data.mapping_start.anchor.map { String(cString: $0) }))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let frame = stack.removeLast()
            let node: YAMLNode = frame.isMapping ? .mapping(frame.pairs, mark: frame.mark)
                : .sequence(frame.items, mark: frame.mark)
            add(node, height: frame.height + 1, size: frame.size, anchor: frame.anchor, at: frame.mark)
        default:
            break
        }
    }

    private func tooDeep(_ mark: YAMLMark) -> YAMLSyntaxError {
        YAMLSyntaxError(message: "mappings and lists are nested too deeply (limit \(YAMLParser.maximumDepth) levels, aliases included)",
                        mark: mark)
    }

    /// Counts `nodes` more nodes in the expanded document; too many ends the parse.
    private mutating func count(_ nodes: Int, at mark: YAMLMark) {
        expandedNodes += nodes
        if expandedNodes > YAMLParser.maximumNodes, fatal == nil {
            fatal = YAMLSyntaxError(
                message: "the document is too large with its aliases expanded (limit \(YAMLParser.maximumNodes) nodes); is it an alias bomb?",
                mark: mark)
        }
    }

    /// Adds `node` (`height` levels, `size` nodes) to the open mapping or list, or makes it the root.
    private mutating func add(_ node: YAMLNode, height: Int, size: Int, anchor: String?, at mark: YAMLMark) {
        guard fatal == nil else { return }
        if stack.count + height > YAMLParser.maximumDepth {
            fatal = tooDeep(mark)
            return
        }
        if let anchor { anchors[anchor] = (node, height, size) }
        guard !stack.isEmpty else {
            if documents <= 1 { root = node }
            return
        }
        let top = stack.count - 1
        stack[top].height = max(stack[top].height, height)
        stack[top].size += size
        guard stack[top].isMapping else {
            stack[top].items.append(node)
            return
        }
        if let key = stack[top].key {
            stack[top].pairs.append(YAMLPair(key: key, value: node))
            stack[top].key = nil
            return
        }
        if case .scalar(let k) = node {
            if k.style == .plain && k.value == "<<" {
                problems.append(YAMLSyntaxError(message: "YAML merge keys ('<<') are not supported", mark: k.mark))
            } else if let first = stack[top].seen[k.value] {
                problems.append(YAMLSyntaxError(
                    message: "duplicate key '\(k.value)' (first at line \(first + 1))", mark: k.mark))
            } else {
                stack[top].seen[k.value] = k.mark.line
            }
        }
        stack[top].key = node
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
