/// Help texts for `pushbridge --help` and `pushbridge help COMMAND`.
enum Usage {
    static let main = """
    pushbridge — MQTT messages to Apple-style notifications

    usage:
      pushbridge run     [-c FILE]     run the bridge (default FILE: ./bridge.yml, or $PUSHBRIDGE_CONFIG)
      pushbridge check   [-c FILE]     validate the file and print the resolved routes and filters
      pushbridge try     [-c FILE] -t TOPIC [-m PAYLOAD | -f PAYLOAD_FILE] [-p NAME=VALUE]...
                         [--retain] [--at TIME] [--json]
                                       one message through mapping and the extension stage, offline
      pushbridge try     [-c FILE] --samples FILE [--json]
                                       every line `topic<TAB>payload` of FILE, as a table of outcomes
      pushbridge monitor [-c FILE] [--once] [--json]
                                       live per-topic table read from the stats topic
      pushbridge health  [-c FILE] [--url URL]
                                       exit 0 when the bridge's /healthz answers 200 (for container healthchecks)
      pushbridge alerts  [-c FILE] [--json]
                                       the active alerts (conditions), read from the bridge's /api/alerts
      pushbridge ack     [-c FILE] ALERT_ID [--snooze 30m] [--by NAME]
                                       acknowledge (or snooze) an alert: published to conditions.ack_topic
      pushbridge people  [-c FILE] [--json]
                                       each person's presence and since when, read from the bridge's /api/people
      pushbridge schema                print the JSON Schema of bridge.yml (docs/bridge.schema.json)
      pushbridge help config [KEY]     the reference of every bridge.yml key, or of one
                                       (e.g. extension.filters.changed); --markdown: as docs/configuration.md
      pushbridge --version | --help    (also `pushbridge help COMMAND`)

    exit codes: 0 success, 1 runtime failure, 2 usage or configuration error
    """

    static let commands: [String: String] = [
        "run": """
        usage: pushbridge run [-c FILE]

        Connects to the broker, subscribes to every route's topic filter and republishes the
        deliverable alerts to the display topic. SIGTERM or SIGINT stops taking new work,
        finishes what is in flight (bounded by extension.time_limit + expire_grace), publishes
        "offline" to the status topic and exits 0; a second signal exits at once.
        SIGHUP re-reads the file: a valid one takes effect, an invalid one is logged and ignored.
        """,
        "check": """
        usage: pushbridge check [-c FILE]

        Validates FILE and prints the resolved configuration. Every problem is reported, one
        per line, as FILE:LINE:COLUMN: error: MESSAGE; the exit code is 2 when there is any.
        What loads but may not do what you expect (a `share:` route behind a dedupe,
        rate_limit or changed filter) is printed as FILE:LINE:COLUMN: warning: MESSAGE on
        standard error; warnings leave the exit code 0.
        """,
        "try": """
        usage: pushbridge try [-c FILE] -t TOPIC [-m PAYLOAD | -f PAYLOAD_FILE] [-p NAME=VALUE]...
                              [--retain] [--at TIME] [--attach NAME=FILE]... [--json]
               pushbridge try [-c FILE] --samples FILE [--json]

        Runs one message (or each sample line `topic<TAB>payload`) through the routes, the
        mapping, validation and the extension stage without a broker, and prints the request,
        each filter's verdict, the rule that decided, the outcome and the display message
        that would be published. -p sets an MQTT 5 user property (e.g. -p apns-push-type=alert).
        With no -m or -f the payload is read from standard input. --retain: the message
        arrives as retained state (what the broker replays on subscribe). --at TIME: the local
        time it arrives, 22:30 (today) or 2026-03-04T22:30; hour, weekday, quiet_hours and
        expiry see it. --attach NAME=FILE: the file's bytes stand in for the route's attachment
        NAME (try has no broker and fetches no URL; without it each attachment is reported
        not attached).

        --samples FILE runs every line through ONE pipeline in file order, so dedupe,
        rate_limit and changed see the sequence. Lines starting with # are comments; the
        directives `#@ at TIME` (the following samples arrive then), `#@ env NAME=VALUE`
        (the file is reloaded with the variable set; unchanged filters keep their memory,
        as on SIGHUP), `#@ retain` (the next sample arrives retained) and `#@ attach
        NAME=FILE` (the next sample's attachment NAME gets the file's bytes; FILE relative to
        the samples file) apply.
        """,
        "monitor": """
        usage: pushbridge monitor [-c FILE] [--once] [--json]

        Shows a per-topic table of the bridge described by FILE, redrawn in place; Ctrl-C
        exits. Reads the live snapshots of monitoring.http's /api/events when it answers
        (RATE/S per second), else subscribes to the stats topic (the bridge may run on
        another host). --once prints one table and exits; --json prints the snapshot.
        """,
        "schema": """
        usage: pushbridge schema

        Prints the JSON Schema (draft 2020-12) of bridge.yml: every key with its type, enum,
        default and description; unknown keys are rejected, as the loader rejects them. Editors
        that speak yaml-language-server complete and check a file that starts with
        `# yaml-language-server: $schema=<path to bridge.schema.json>`.
        """,
        "health": """
        usage: pushbridge health [-c FILE] [--url URL]

        GETs /healthz of the bridge's monitoring.http address (or URL) and exits 0 on 200,
        1 otherwise. Needs no curl in the image.
        """,
        "alerts": """
        usage: pushbridge alerts [-c FILE] [--json]

        Lists the active conditions of the bridge FILE configures (its monitoring.http must be
        set): alert id, route, key, state (raised, repeated, escalated), since when, repeats
        delivered, the last escalation step, and who acknowledged it or until when it is
        snoozed. --json prints GET /api/alerts as it answered.
        """,
        "people": """
        usage: pushbridge people [-c FILE] [--json]

        Lists each person of the bridge FILE configures (its monitoring.http must be set):
        name, presence (home, away or unknown) and since when (ISO 8601, UTC; - while
        unknown). --json prints GET /api/people as it answered:
        {"alice":{"presence":"home","since":"2026-12-07T08:00:00.000Z"},"bob":{"presence":"unknown","since":null}}.
        """,
        "ack": """
        usage: pushbridge ack [-c FILE] ALERT_ID [--snooze 30m] [--by NAME]

        Publishes {"alert_id": ALERT_ID, "by": NAME, "snooze": D} to conditions.ack_topic on
        FILE's broker (QoS 1, waits for the PUBACK). Acknowledged, an alert stops repeating
        and escalating and stays raised until its condition clears; snoozed, its repeats and
        steps pause for D and resume if it is still active.

        An empty ALERT_ID or a --snooze that is not a duration above zero (30m, 1.5h, 90s)
        exits 2. With monitoring.http in FILE, the bridge's GET /api/alerts is asked first
        (with monitoring.http_auth's token): an ALERT_ID that is not active exits 1 with
        "no active alert ALERT_ID" and the active ones (id, route, key); when the server does
        not answer, ack says so on stderr and publishes anyway (the bridge may run elsewhere).
        Without monitoring.http nothing is checked: the bridge counts an acknowledgement of
        no active alert (stats conditions.ack_unknown) and logs it at debug.
        """,
    ]
}
