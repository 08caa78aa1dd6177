/// Tree-walking evaluation of parsed expressions. Never fails: unsupported operations
/// and missing paths yield `null`.
extension Node {
    func evaluate<Context: EvaluationContext>(in context: Context) -> JSONValue {
        switch self {
        case .literal(let value):
            return value
        case .variable(let variable):
            return context.value(of: variable)
        case .list(let elements):
            return .array(elements.map { $0.evaluate(in: context) })
        case .member(let base, let name):
            if case .variable(let variable) = base { return context.member(name, of: variable) }
            return base.evaluate(in: context)[name] ?? .null
        case .index(let base, let index):
            if case .variable(.levels) = base { return context.levelsElement(index.evaluate(in: context)) }
            return Node.subscripted(base.evaluate(in: context), by: index.evaluate(in: context))
        case .not(let operand):
            return .bool(!Operators.isTruthy(operand.evaluate(in: context)))
        case .negate(let operand):
            return Operators.negate(operand.evaluate(in: context))
        case .and(let left, let right):
            return .bool(Operators.isTruthy(left.evaluate(in: context)) && Operators.isTruthy(right.evaluate(in: context)))
        case .or(let left, let right):
            return .bool(Operators.isTruthy(left.evaluate(in: context)) || Operators.isTruthy(right.evaluate(in: context)))
        case .matchLiteral(let operand, let regex):
            guard case .string(let text) = operand.evaluate(in: context) else { return .bool(false) }
            return .bool(regex.matches(text))
        case .binary(let op, let leftNode, let rightNode):
            let left = leftNode.evaluate(in: context)
            let right = rightNode.evaluate(in: context)
            switch op {
            case .equal: return .bool(Operators.equal(left, right))
            case .notEqual: return .bool(!Operators.equal(left, right))
            case .less, .lessEqual, .greater, .greaterEqual: return .bool(Operators.ordered(op, left, right))
            case .contains: return .bool(Operators.contains(left, in: right))
            case .notContains: return .bool(!Operators.contains(left, in: right))
            case .match: return .bool(Operators.matches(left, pattern: right))
            case .add: return Operators.add(left, right)
            case .subtract: return Operators.subtract(left, right)
            case .multiply: return Operators.multiply(left, right)
            case .divide: return Operators.divide(left, right)
            }
        case .pipe(let base, let pipe):
            return pipe.apply(to: base.evaluate(in: context), in: context)
        }
    }

    /// `value[index]`: list position (negative counts from the end) or object key.
    static func subscripted(_ value: JSONValue, by index: JSONValue) -> JSONValue {
        switch (value, index) {
        case (.array(let elements), _):
            return index.exactInteger.map { element(of: elements, at: $0) } ?? .null
        case (.object(let members), .string(let key)):
            return members[key] ?? .null
        default:
            return .null
        }
    }

    private static func element(of elements: [JSONValue], at position: Int64) -> JSONValue {
        let count = Int64(elements.count)
        let resolved = position < 0 ? count + position : position
        guard resolved >= 0, resolved < count else { return .null }
        return elements[Int(resolved)]
    }
}
