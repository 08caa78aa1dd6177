import Foundation

/// Loads and validates `bridge.yml` (docs/configuration.md) into a `BridgeConfig`.
///
/// Every problem in the file is reported in one run, each positioned
/// (`bridge.yml:12:9: error: …`) and sorted by line and column.
public enum ConfigLoader {
    static let topLevelKeys = ConfigReference.keys(in: "")

    /// Reads and validates the file at `path`; `${NAME}` references come from `environment`.
    public static func load(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Result<BridgeConfig, ConfigErrors> {
        switch readFile(path) {
        case .failure(let reason):
            return .failure(ConfigErrors([ConfigError(path: path, line: nil, column: nil,
                                                      message: "cannot read file: \(reason)")]))
        case .success(let text):
            return load(text: text, path: path, environment: environment)
        }
    }

    /// Validates `text` as if read from `path` (used in messages and for relative files).
    public static func load(
        text: String,
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Result<BridgeConfig, ConfigErrors> {
        load(text: text, path: path, environment: environment, compiler: .standard)
    }

    /// The loader with injectable template and expression compilers.
    static func load(text: String, path: String, environment: [String: String],
                     compiler: LanguageCompiler) -> Result<BridgeConfig, ConfigErrors> {
        let document: YAMLDocument
        switch YAMLParser.parse(text) {
        case .failure(let syntax):
            let error = ConfigError(path: path, line: syntax.mark.map { $0.line + 1 },
                                    column: syntax.mark.map { $0.column + 1 }, message: syntax.message)
            return .failure(ConfigErrors([error]))
        case .success(let parsed):
            document = parsed
        }
        let reader = ConfigReader(path: path, source: text, compiler: compiler)
        for problem in document.problems {
            reader.error(problem.message, at: problem.mark ?? YAMLMark(line: 0, column: 0))
        }
        let root = (document.root ?? .mapping([], mark: YAMLMark(line: 0, column: 0))).mapScalars { scalar in
            let (value, problems) = EnvironmentSubstitution.substitute(scalar.value, environment: environment)
            for problem in problems { reader.error(problem.message, in: scalar, offset: problem.offset) }
            var out = scalar
            out.value = value
            return out
        }
        let config = ConfigAssembly(reader: reader, path: path).build(root)
        if reader.errors.isEmpty { return .success(config) }
        return .failure(ConfigErrors(reader.errors))
    }

    /// The file's text, or the system's reason (`No such file or directory`).
    static func readFile(_ path: String) -> Result<String, ConfigReader.ReadFailure> {
        contents(ofFile: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's bytes (at most `limit`, else `tooLarge` is the reason), or the system's reason.
    static func contents(ofFile path: String, limit: Int = .max,
                         tooLarge: String = "") -> Result<[UInt8], ConfigReader.ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ConfigReader.ReadFailure(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(ConfigReader.ReadFailure(reason: String(cString: strerror(errno))))
            }
            if n == 0 { return .success(data) }
            data += chunk[..<n]
            if data.count > limit { return .failure(ConfigReader.ReadFailure(reason: tooLarge)) }
        }
    }
}
