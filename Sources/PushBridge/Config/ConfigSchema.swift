/// The JSON Schema (draft 2020-12) of `bridge.yml`, made from `ConfigReference`: what
/// `pushbridge schema` prints and docs/bridge.schema.json holds.
///
/// It admits what the reader admits: every key may be null (its default) unless required;
/// every mapping rejects unknown keys; a duration is a number of seconds or a string such as
/// `30s`; and because `${NAME}` is replaced in any scalar before the reader types it, a
/// number, boolean or word may also be a string holding such a reference.
package enum ConfigSchema {
    /// A `${NAME}` or `${NAME:-default}` reference somewhere in a string.
    static let substitutionPattern = "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}"
    /// `250ms`, `30s`, `1.5m`, `2h`, `1d`, `45`.
    static let durationPattern = "^\\s*([0-9]+\\.?[0-9]*|\\.[0-9]+)(ms|s|m|h|d)?\\s*$"
    /// `HH:MM`, 00:00 to 23:59.
    static let clockPattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$"

    /// The schema as pretty JSON text, ending with a newline.
    package static var text: String { document.prettyJSONText + "\n" }

    /// The schema document.
    static var document: JSONValue {
        var root: JSONObject = [:]
        root["$schema"] = .string("https://json-schema.org/draft/2020-12/schema")
        root["title"] = .string("pushbridge bridge.yml")
        root["description"] = .string("Configuration of pushbridge, the MQTT to Apple-style notification bridge. Written by `pushbridge schema` from the same table as `pushbridge help config` and docs/configuration.md.")
        for (key, value) in mapping("") { root[key] = value }
        return .object(root)
    }

    /// An object schema for the mapping at `path`: its keys, required ones, nothing else.
    static func mapping(_ path: String) -> JSONObject {
        var properties: JSONObject = [:]
        var required: [JSONValue] = []
        for key in ConfigReference.entries(in: path) {
            properties[key.name] = .object(schema(for: key))
            if key.required { required.append(.string(key.name)) }
        }
        var out: JSONObject = ["type": .string("object"), "properties": .object(properties)]
        if !required.isEmpty { out["required"] = .array(required) }
        out["additionalProperties"] = .bool(false)
        if path == "extension.filters[]" {
            // Exactly one action key, as the reader demands.
            let actions = ConfigReader.filterActions.map { JSONValue.object(["required": .array([.string($0)])]) }
            out["oneOf"] = .array(actions)
        }
        return out
    }

    /// The schema of one key: description, default, and its type (or null unless required).
    static func schema(for key: ConfigKey) -> JSONObject {
        var out: JSONObject = [:]
        var description = key.summary
        if let note = key.defaultNote { description += " Default: \(note)." }
        out["description"] = .string(description)
        if let value = key.defaultValue { out["default"] = value }
        var choices = alternatives(key.type, path: key.childPath)
        if !key.required { choices.append(.object(["type": .string("null")])) }
        let bareTypes = choices.compactMap { choice -> [JSONValue]? in
            guard case .object(let o) = choice, o.count == 1, let t = o["type"] else { return nil }
            if case .array(let several) = t { return several }
            return [t]
        }
        if choices.count > 1, bareTypes.count == choices.count {
            out["type"] = .array(bareTypes.flatMap { $0 })
        } else if choices.count == 1, case .object(let only) = choices[0] {
            for (k, v) in only { out[k] = v }
        } else {
            out["anyOf"] = .array(choices)
        }
        out["examples"] = .array([key.example])
        return out
    }

    /// The schemas a value of `type` may match; `path` holds a mapping's keys.
    static func alternatives(_ type: ConfigType, path: String) -> [JSONValue] {
        let substitution = JSONValue.object(["type": .string("string"), "pattern": .string(substitutionPattern)])
        func bounded(_ kind: String, _ low: JSONValue, _ high: JSONValue?) -> [JSONValue] {
            var o: JSONObject = ["type": .string(kind), "minimum": low]
            if let high { o["maximum"] = high }
            return [.object(o), substitution]
        }
        switch type {
        case .string, .template, .expression:
            // Any scalar: a plain `true` or `42` is read as its text.
            return [.object(["type": .array(["string", "number", "boolean"].map { .string($0) })])]
        case .integer(let low, let high):
            return bounded("integer", .int(Int64(low)), high.map { .int(Int64($0)) })
        case .number(let low, let high):
            return bounded("number", .double(low), high.map { .double($0) })
        case .boolean:
            return [.object(["type": .string("boolean")]), substitution]
        case .duration:
            return [.object(["type": .string("number"), "minimum": .int(0)]),
                    .object(["type": .string("string"), "pattern": .string(durationPattern)]), substitution]
        case .clock:
            return [.object(["type": .string("string"), "pattern": .string(clockPattern)]), substitution]
        case .words(let words):
            return [.object(["enum": .array(words.map { .string($0) })]), substitution]
        case .integers(let numbers):
            return [.object(["enum": .array(numbers.map { .int(Int64($0)) })]), substitution]
        case .strings:
            let item = JSONValue.object(["type": .array(["string", "number", "boolean"].map { .string($0) })])
            return [.object(["type": .string("array"), "items": item])]
        case .stringMap:
            let value = JSONValue.object(["type": .array(["string", "number", "boolean"].map { .string($0) })])
            return [.object(["type": .string("object"), "additionalProperties": value])]
        case .mapping:
            return [.object(mapping(path))]
        case .listOfMappings:
            var list: JSONObject = ["type": .string("array"), "items": .object(mapping(path))]
            if path == "routes[]" { list["minItems"] = .int(1) }
            return [.object(list)]
        case .either(let types):
            var out: [JSONValue] = []
            for t in types {
                for alternative in alternatives(t, path: path) where !out.contains(alternative) { out.append(alternative) }
            }
            return out
        }
    }
}
