#!/usr/bin/env bash
# Validates compose/compose.yml with Debian 12's docker-compose (1.29), without a docker engine:
# `config` must succeed without a profile and with each of `scale`, `redis` and `monitoring`, and
# the resolved model must hold what the deployment promises (healthchecks, the secret,
# loopback-only ports, depends_on healthy, one hostname, volume and partition index per `scale`
# replica, one hostname and volume per `redis` replica with Redis beside them, profiles). Exit 0
# when all holds.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v docker-compose >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq docker-compose >/dev/null 2>&1 \
        || { apt-get update -qq && apt-get install -y -qq docker-compose >/dev/null; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

docker-compose -f compose/compose.yml config > "$tmp/default.yml"
docker-compose -f compose/compose.yml --profile scale config > "$tmp/scale.yml"
docker-compose -f compose/compose.yml --profile monitoring config > "$tmp/monitoring.yml"
docker-compose -f compose/compose.yml --profile redis config > "$tmp/redis.yml"

# docker-compose 1.29 depends on python3-yaml, so Debian's own python3 can read the resolved files.
/usr/bin/python3 - "$tmp/default.yml" "$tmp/scale.yml" "$tmp/monitoring.yml" "$tmp/redis.yml" <<'PY'
import os, sys, yaml

problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1]
    doc = yaml.safe_load(open(path))
    services = doc["services"]
    check(set(services) == {"mosquitto", "pushbridge", "pushbridge-replica-1", "pushbridge-replica-2",
                            "pushbridge-replica-3", "prometheus", "grafana", "redis", "pushbridge-redis-1",
                            "pushbridge-redis-2", "pushbridge-redis-3"}, f"{name}: services {sorted(services)}")
    check(doc["secrets"]["mqtt_password"]["file"].endswith("compose/secrets/mqtt_password.txt"),
          f"{name}: secret file")
    check(doc["secrets"]["pushbridge_http_token"]["file"].endswith("compose/secrets/pushbridge_http_token.txt"),
          f"{name}: HTTP token secret file")

    m = services["mosquitto"]
    check(m["image"] == "eclipse-mosquitto:2", f"{name}: mosquitto image")
    check("profiles" not in m, f"{name}: mosquitto must run in every profile")
    check(any(v.endswith(":/mosquitto/config/mosquitto.conf:ro") and "compose/mosquitto.conf" in v for v in m["volumes"]),
          f"{name}: mosquitto.conf mounted read-only")
    check(any(v.startswith("mosquitto-data:/mosquitto/data") for v in m["volumes"]), f"{name}: broker persistence volume")
    test = " ".join(m["healthcheck"]["test"])
    # 1.29 prints $$ back escaped; the shell in the container gets one literal $.
    check("mosquitto_sub" in test and "SYS/broker/version" in test and "/run/secrets/mqtt_password" in test,
          f"{name}: mosquitto healthcheck {test!r}")

    for sname, s in services.items():
        for p in s.get("ports", []):
            check(str(p).startswith("127.0.0.1:"), f"{name}: {sname} publishes {p} beyond loopback")
        if sname in ("mosquitto", "prometheus", "grafana", "redis"):
            continue
        env = s["environment"]
        check(env.get("MQTT_HOST") == "mosquitto", f"{name}: {sname} MQTT_HOST")
        check(env.get("MQTT_PORT") == "1883", f"{name}: {sname} MQTT_PORT")
        check(env.get("MQTT_USERNAME") == "pushbridge", f"{name}: {sname} MQTT_USERNAME")
        check(env.get("MQTT_PASSWORD_FILE") == "/run/secrets/mqtt_password", f"{name}: {sname} MQTT_PASSWORD_FILE")
        check(env.get("PUSHBRIDGE_HTTP", "").endswith(":9464"), f"{name}: {sname} PUSHBRIDGE_HTTP")
        check([x["source"] for x in s["secrets"]] == ["mqtt_password", "pushbridge_http_token"], f"{name}: {sname} secrets")
        wanted = {"mosquitto": {"condition": "service_healthy"}}
        if sname.startswith("pushbridge-redis-"):
            wanted["redis"] = {"condition": "service_healthy"}
        check(s["depends_on"] == wanted, f"{name}: {sname} depends_on {s['depends_on']}")
        check(s["restart"] == "unless-stopped", f"{name}: {sname} restart")
        check(s["healthcheck"]["test"] == ["CMD", "pushbridge", "health"], f"{name}: {sname} healthcheck")
        check(s["build"]["context"] == s["build"]["context"].rstrip("/") and s["build"]["dockerfile"] == "Dockerfile",
              f"{name}: {sname} build")
        check(any(v.endswith(":/etc/pushbridge/bridge.yml:ro") for v in s["volumes"]), f"{name}: {sname} config mount")

    single = services["pushbridge"]
    check("profiles" not in single, f"{name}: pushbridge must run without a profile")
    check(any(v.endswith("/bridge.yml:/etc/pushbridge/bridge.yml:ro") and "/compose/" not in v for v in single["volumes"]),
          f"{name}: pushbridge mounts the root bridge.yml")
    check("127.0.0.1:9464:9464/tcp" in single.get("ports", []), f"{name}: pushbridge port 9464 on loopback")

    hostnames, data = set(), set()
    for i in (1, 2, 3):
        r = services[f"pushbridge-replica-{i}"]
        check(r.get("profiles") == ["scale"], f"{name}: replica {i} profile")
        check(any("compose/bridge.scale.yml:/etc/pushbridge/bridge.yml:ro" in v for v in r["volumes"]),
              f"{name}: replica {i} mounts bridge.scale.yml")
        check("PUSHBRIDGE_CLIENT_ID" not in r["environment"], f"{name}: replica {i} must not pin a client id")
        check(r["environment"].get("PUSHBRIDGE_PARTITION_INDEX") == str(i - 1),
              f"{name}: replica {i} PUSHBRIDGE_PARTITION_INDEX {r['environment'].get('PUSHBRIDGE_PARTITION_INDEX')!r}, expected '{i - 1}'")
        hostnames.add(r.get("hostname"))
        data.update(v.split(":")[0] for v in r["volumes"] if v.endswith(":/var/lib/pushbridge:rw"))
    check(len(hostnames) == 3 and None not in hostnames, f"{name}: replica hostnames {hostnames}")
    check(len(data) == 3, f"{name}: one journal volume per replica, got {data}")

    # Profile `redis`: Redis (no port on the host, its config and a data volume, a healthcheck
    # with redis-cli) and three replicas sharing bridge.redis.yml, each with its own hostname
    # (client id, status and stats topics) and journal volume, Redis's address from REDIS_URL.
    r = services["redis"]
    check(r.get("profiles") == ["redis"], f"{name}: redis profile")
    check(r["image"].startswith("redis:"), f"{name}: redis image {r['image']}")
    check(r.get("command") == ["redis-server", "/usr/local/etc/redis/redis.conf"], f"{name}: redis command")
    check(any(v.endswith("compose/redis.conf:/usr/local/etc/redis/redis.conf:ro") for v in r["volumes"]),
          f"{name}: redis.conf mounted read-only")
    check(any(v.startswith("redis-data:/data") for v in r["volumes"]), f"{name}: redis data volume")
    check("ports" not in r, f"{name}: redis publishes a port")
    check("redis-cli" in " ".join(r["healthcheck"]["test"]) and "PONG" in " ".join(r["healthcheck"]["test"]),
          f"{name}: redis healthcheck")
    hostnames, data = set(), set()
    for i in (1, 2, 3):
        b = services[f"pushbridge-redis-{i}"]
        check(b.get("profiles") == ["redis"], f"{name}: redis replica {i} profile")
        check(any("compose/bridge.redis.yml:/etc/pushbridge/bridge.yml:ro" in v for v in b["volumes"]),
              f"{name}: redis replica {i} mounts bridge.redis.yml")
        check(b["environment"].get("REDIS_URL") == "redis://redis:6379/0", f"{name}: redis replica {i} REDIS_URL")
        check("PUSHBRIDGE_CLIENT_ID" not in b["environment"] and "PUSHBRIDGE_PARTITION_INDEX" not in b["environment"],
              f"{name}: redis replica {i} must not pin a client id nor a partition")
        hostnames.add(b.get("hostname"))
        data.update(v.split(":")[0] for v in b["volumes"] if v.endswith(":/var/lib/pushbridge:rw"))
    check(len(hostnames) == 3 and None not in hostnames, f"{name}: redis replica hostnames {hostnames}")
    check(len(data) == 3, f"{name}: one journal volume per redis replica, got {data}")

    # Profile `monitoring`: Prometheus with the repo's scrape config and rules, Grafana with the
    # provisioned datasource and dashboard; both only in that profile.
    prom, graf = services["prometheus"], services["grafana"]
    check(prom.get("profiles") == ["monitoring"] and graf.get("profiles") == ["monitoring"], f"{name}: monitoring profiles")
    check(prom["image"].startswith("prom/prometheus:") and graf["image"].startswith("grafana/grafana:"), f"{name}: images")
    check(any(v.endswith("compose/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro") for v in prom["volumes"]),
          f"{name}: prometheus.yml mounted")
    check(any(v.endswith("compose/prometheus/rules.yml:/etc/prometheus/rules.yml:ro") for v in prom["volumes"]),
          f"{name}: rules.yml mounted")
    check(any(v.endswith("compose/grafana/provisioning:/etc/grafana/provisioning:ro") for v in graf["volumes"]),
          f"{name}: grafana provisioning mounted")
    check(any(v.endswith("compose/grafana/dashboards:/var/lib/grafana/dashboards:ro") for v in graf["volumes"]),
          f"{name}: grafana dashboards mounted")
    check("pushbridge" in prom.get("depends_on", {}), f"{name}: prometheus depends on pushbridge")
    check([x["source"] for x in prom.get("secrets", [])] == ["pushbridge_http_token"], f"{name}: prometheus has the HTTP token")

# What the monitoring files say fits together: the scrape target is the bridge's published
# port, the rules file is the mounted one, the dashboard uses the provisioned datasource.
pc = yaml.safe_load(open("compose/prometheus/prometheus.yml"))
check(pc["rule_files"] == ["/etc/prometheus/rules.yml"], "prometheus.yml rule_files")
check(pc["scrape_configs"][0]["static_configs"][0]["targets"] == ["pushbridge:9464"], "prometheus.yml scrape target")
check(pc["scrape_configs"][0].get("authorization") == {"type": "Bearer", "credentials_file": "/run/secrets/pushbridge_http_token"},
      "prometheus.yml sends the bridge's token (authorization.credentials_file)")
ds = yaml.safe_load(open("compose/grafana/provisioning/datasources/prometheus.yml"))["datasources"][0]
check(ds["url"] == "http://prometheus:9090", "grafana datasource url")
import json
dash = json.load(open("compose/grafana/dashboards/pushbridge.json"))
uids = {p["datasource"]["uid"] for p in dash["panels"]} | {t["datasource"]["uid"] for p in dash["panels"] for t in p["targets"]}
check(uids == {ds["uid"]}, f"dashboard datasource uids {uids} != provisioned {ds['uid']}")
prov = yaml.safe_load(open("compose/grafana/provisioning/dashboards/pushbridge.yml"))["providers"][0]
check(prov["options"]["path"] == "/var/lib/grafana/dashboards", "grafana dashboard provider path")

for p in problems:
    print("compose_config:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

# The scale config gives each replica its own client id and partition, and no route a share group
# (share: with partition: is a configuration error).
# shellcheck disable=SC2016  # the patterns are literal text of the file
grep -q 'client_id: pushbridge-${HOSTNAME:-local}' compose/bridge.scale.yml
# shellcheck disable=SC2016
grep -q '^  index: ${PUSHBRIDGE_PARTITION_INDEX}$' compose/bridge.scale.yml \
    || { echo "compose_config: bridge.scale.yml takes no partition index from PUSHBRIDGE_PARTITION_INDEX" >&2; exit 1; }
! grep -q '^ *share:' compose/bridge.scale.yml \
    || { echo "compose_config: a route in bridge.scale.yml has 'share:' (it partitions instead)" >&2; exit 1; }
# The redis config: every route shared, one client id and stats topic per replica, a journal,
# the state in Redis (with REDIS_URL's default the compose service), a dedupe filter, no partition.
# shellcheck disable=SC2016  # the patterns are literal text of the file
grep -q 'client_id: pushbridge-${HOSTNAME:-local}' compose/bridge.redis.yml \
    || { echo "compose_config: bridge.redis.yml has no per-replica client id" >&2; exit 1; }
# shellcheck disable=SC2016
grep -q '^  stats_topic: pushbridge/${HOSTNAME:-local}/stats$' compose/bridge.redis.yml \
    || { echo "compose_config: bridge.redis.yml has no per-replica stats topic" >&2; exit 1; }
# shellcheck disable=SC2016
grep -q '^    url: ${REDIS_URL:-redis://redis:6379/0}$' compose/bridge.redis.yml \
    || { echo "compose_config: bridge.redis.yml's state.redis.url is not the compose service" >&2; exit 1; }
[ "$(grep -c '^  - name: ' compose/bridge.redis.yml)" = "$(grep -c '^    share: pushbridge$' compose/bridge.redis.yml)" ] \
    || { echo "compose_config: a route of bridge.redis.yml has no 'share: pushbridge'" >&2; exit 1; }
grep -q '^journal:' compose/bridge.redis.yml && grep -q '^      dedupe:' compose/bridge.redis.yml \
    || { echo "compose_config: bridge.redis.yml has no journal or no dedupe filter" >&2; exit 1; }
! grep -q '^partition:' compose/bridge.redis.yml \
    || { echo "compose_config: bridge.redis.yml has 'partition:' (it shares instead)" >&2; exit 1; }
# The Redis config: reachable by the replicas on the compose network, persisted, never evicting.
for want in 'bind 0.0.0.0' 'protected-mode no' 'dir /data' 'appendonly yes' 'maxmemory-policy noeviction'; do
    grep -qx "$want" compose/redis.conf || { echo "compose_config: compose/redis.conf lacks '$want'" >&2; exit 1; }
done
# The shipped password file holds the user the bridge logs in as, hashed.
# shellcheck disable=SC2016  # \$7\$ is the hash scheme prefix, literal
grep -q '^pushbridge:\$7\$' compose/passwd || { echo "compose_config: compose/passwd has no hashed 'pushbridge' user" >&2; exit 1; }

echo "compose_config: default, scale, monitoring and redis profiles resolve with docker-compose $(docker-compose version --short)"
