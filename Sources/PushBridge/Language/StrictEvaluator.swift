/// Evaluation where a missing path is not `null` but "cannot be evaluated" (`nil`), for a
/// condition's `active`: a payload without the key (or one that is not JSON) neither
/// raises nor clears.
extension Node {
    func evaluateStrictly<Context: EvaluationContext>(in context: Context) -> JSONValue? {
        switch self {
        case .literal, .variable:
            return evaluate(in: context)
        case .list(let elements):
            var values: [JSONValue] = []
            for element in elements {
                guard let value = element.evaluateStrictly(in: context) else { return nil }
                values.append(value)
            }
            return .array(values)
        case .member(let base, let name):
            guard case .object(let members)? = base.evaluateStrictly(in: context) else { return nil }
            return members[name]
        case .index(let base, let indexNode):
            guard let value = base.evaluateStrictly(in: context), let index = indexNode.evaluateStrictly(in: context) else {
                return nil
            }
            switch (value, index) {
            case (.array(let elements), _):
                guard let position = index.exactInteger else { return nil }
                let resolved = position < 0 ? Int64(elements.count) + position : position
                guard resolved >= 0, resolved < Int64(elements.count) else { return nil }
                return elements[Int(resolved)]
            case (.object(let members), .string(let key)):
                return members[key]
            default:
                return nil
            }
        case .not(let operand):
            return operand.evaluateStrictly(in: context).map { .bool(!Operators.isTruthy($0)) }
        case .negate(let operand):
            return operand.evaluateStrictly(in: context).map(Operators.negate)
        case .and(let left, let right), .or(let left, let right):
            guard let l = left.evaluateStrictly(in: context), let r = right.evaluateStrictly(in: context) else { return nil }
            return rebuilt(l, r)
        case .matchLiteral(let operand, let regex):
            guard let value = operand.evaluateStrictly(in: context) else { return nil }
            return Node.matchLiteral(.literal(value), regex).evaluate(in: context)
        case .binary(let op, let left, let right):
            guard let l = left.evaluateStrictly(in: context), let r = right.evaluateStrictly(in: context) else { return nil }
            return Node.binary(op, .literal(l), .literal(r)).evaluate(in: context)
        case .pipe(let base, let pipe):
            if case .defaultValue(let fallback) = pipe {
                guard let value = base.evaluateStrictly(in: context) else { return fallback.evaluateStrictly(in: context) }
                return Node.pipe(.literal(value), pipe).evaluate(in: context)
            }
            return base.evaluateStrictly(in: context).map { Node.pipe(.literal($0), pipe).evaluate(in: context) }
        }
    }

    /// `a && b` or `a || b` with both sides already known.
    private func rebuilt(_ l: JSONValue, _ r: JSONValue) -> JSONValue {
        switch self {
        case .and: return .bool(Operators.isTruthy(l) && Operators.isTruthy(r))
        default: return .bool(Operators.isTruthy(l) || Operators.isTruthy(r))
        }
    }
}
