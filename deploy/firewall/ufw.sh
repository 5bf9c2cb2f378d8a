#!/bin/sh
# Close every inbound port of a search host but SSH (spec, "Search engine operation",
# rule 3). Run as root on each host that runs a hosted Meilisearch:
#   sudo SSH_PORT=22 sh deploy/firewall/ufw.sh
# Meilisearch itself is published on 127.0.0.1 only (deploy/meilisearch/compose.*.yml)
# and reached through the outbound tunnel (deploy/tunnel/), so nothing else needs to be
# open. Docker writes its own iptables rules ahead of ufw's for published ports, which is
# why the loopback bind in the compose files matters as much as this script: a port
# published on 0.0.0.0 would be reachable whatever ufw says.
set -eu

SSH_PORT="${SSH_PORT:-22}"

ufw --force reset
ufw default deny incoming
ufw default allow outgoing
# SSH is the one inbound port; limit throttles repeated connection attempts.
ufw limit "${SSH_PORT}/tcp" comment "ssh"
ufw --force enable
ufw status verbose
