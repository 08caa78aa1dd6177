import PushBridge
import PushBridgeCLI

/// `pushbridge help config [KEY | --markdown]`: the reference of bridge.yml's keys.
enum HelpConfigCommand {
    static func run(_ args: [String]) -> Int32 {
        switch args {
        case []:
            printOut(ConfigReference.index)
            return 0
        case ["--markdown"]:
            printOut(ConfigReference.markdown, newline: false)
            return 0
        case let one where one.count == 1 && !one[0].hasPrefix("-"):
            guard let key = ConfigReference.lookup(one[0]) else {
                let hint = ConfigReference.suggestion(for: one[0]).map { "; did you mean '\($0)'?" }
                    ?? "; 'pushbridge help config' lists every key"
                printErr("pushbridge: error: no key '\(one[0])' in bridge.yml" + hint)
                return 2
            }
            printOut(ConfigReference.help(key))
            return 0
        default:
            return fail(2, "usage: pushbridge help config [KEY | --markdown]")
        }
    }
}
