// TEMPORARY until the language branch lands (it brings JSONParser.swift).
extension JSONValue {
    static func parse(_ bytes: [UInt8]) throws -> JSONValue { .string(String(decoding: bytes, as: UTF8.self)) }
}
extension JSONValue {
    func write(into bytes: inout [UInt8]) { bytes += Array(jsonText.utf8) }
}
