# shellcheck shell=bash
# Free loopback ports for the shell harnesses (sourced by integration/deploy/lib.sh and
# integration/monitoring/run.sh).

free_port() { # a TCP port free on 127.0.0.1 right now, chosen below the kernel's ephemeral
    # range (outgoing connections take ports from that range and could take it before the
    # server binds it); 12000-19999 keeps clear of the Swift tests' 20000-31999 too.
    python3 -c '
import random, socket
for _ in range(500):
    p = random.randint(12000, 19999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()
'
}
