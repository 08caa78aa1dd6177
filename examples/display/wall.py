#!/usr/bin/env python3
"""A wall display for pushbridge: renders display-topic messages in a terminal.

Reads mosquitto_sub's JSON lines (-F '%j') on stdin, so it needs nothing but the
Python standard library and mosquitto-clients:

    mosquitto_sub -h localhost -t 'display/#' -F '%j' | python3 wall.py

Each message becomes a card; the newest is on top. A message whose collapse_id matches
a card on screen replaces that card, as a newer request with the same apns-collapse-id
replaces the older notification on a phone. Payloads in the three display formats
(json, apns, text) are understood. With --plain (or when stdout is not a terminal)
each card is printed once, without clearing the screen.
"""
import argparse
import json
import shutil
import sys
import textwrap
from datetime import datetime

STYLE = {  # interruption level -> (ANSI start, label)
    "critical": ("\033[1;41;97m", "CRITICAL"),
    "time-sensitive": ("\033[1;33m", "TIME-SENSITIVE"),
    "passive": ("\033[2m", "passive"),
}
RESET = "\033[0m"


def card_from(line):
    """A card (dict) from one mosquitto_sub '%j' line, or None for a line that is not one."""
    try:
        envelope = json.loads(line)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or "topic" not in envelope:
        return None
    raw = envelope.get("payload", "")
    try:
        payload = json.loads(raw)
    except (TypeError, ValueError):
        payload = raw
    card = {"topic": envelope["topic"], "time": envelope.get("tst", "")[11:19]}
    if isinstance(payload, dict) and isinstance(payload.get("aps"), dict):  # format: apns
        aps = payload["aps"]
        alert = aps.get("alert")
        alert = alert if isinstance(alert, dict) else {"body": alert}
        card.update(title=alert.get("title"), subtitle=alert.get("subtitle"), body=alert.get("body"),
                    level=aps.get("interruption-level"))
    elif isinstance(payload, dict):  # format: json (docs/formats.md)
        card.update(title=payload.get("title"), subtitle=payload.get("subtitle"), body=payload.get("body"),
                    level=payload.get("interruption_level"), collapse_id=payload.get("collapse_id"),
                    route=payload.get("route"), source=payload.get("source_topic"))
        received = payload.get("received_at")
        if isinstance(received, str):
            try:
                stamp = datetime.fromisoformat(received.replace("Z", "+00:00"))
                card["time"] = stamp.astimezone().strftime("%H:%M:%S")
            except ValueError:
                pass
    else:  # format: text
        card["body"] = str(payload)
    return card


def render(card, width, color):
    """The lines of one card, at most `width` columns wide."""
    start, label = STYLE.get(card.get("level") or "", ("\033[1m", card.get("level") or ""))
    inner = max(20, width - 4)
    head = " ".join(part for part in (card.get("time"), label, card.get("route") or card["topic"]) if part)
    title = card.get("title") or "(no title)"
    lines = ["+" + "-" * (inner + 2) + "+", head[:inner]]
    lines.append(start + title[:inner] + RESET if color else title[:inner])
    if card.get("subtitle"):
        lines.append(card["subtitle"][:inner])
    for paragraph in str(card.get("body") or "").splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, inner) or [""])
    out = [lines[0]]
    for text in lines[1:]:
        visible = len(text) - (len(start) + len(RESET) if color and text.startswith(start) else 0)
        out.append("| " + text + " " * (inner - visible) + " |")
    out.append(lines[0])
    return out


def main():
    parser = argparse.ArgumentParser(description="Render pushbridge display messages (mosquitto_sub -F '%j' on stdin).")
    parser.add_argument("--cards", type=int, default=6, help="cards kept on screen (default 6)")
    parser.add_argument("--plain", action="store_true", help="print each card once, no screen clearing or colour")
    args = parser.parse_args()
    plain = args.plain or not sys.stdout.isatty()
    cards = []
    for line in sys.stdin:
        card = card_from(line)
        if card is None:
            continue
        width = min(shutil.get_terminal_size((80, 24)).columns, 100)
        if plain:
            print("\n".join(render(card, width, color=False)), flush=True)
            continue
        if card.get("collapse_id"):
            cards = [c for c in cards if c.get("collapse_id") != card["collapse_id"]]
        cards = [card] + cards[: args.cards - 1]
        screen = ["pushbridge wall display - %d notification(s), newest first" % len(cards), ""]
        for shown in cards:
            screen.extend(render(shown, width, color=True))
        sys.stdout.write("\033[H\033[2J" + "\n".join(screen) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
