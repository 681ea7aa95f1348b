#!/usr/bin/env bash
# System packages the tests need: PostgreSQL (for the concurrency tests) and
# Debian's Chromium (for the browser tests). Installs what is missing with apt
# when it can (root on Debian); otherwise says what to install and fails.
set -euo pipefail

need=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi "WenQuanYi\|Noto Sans CJK" || need+=(fonts-wqy-microhei)  # Chinese in screenshots
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
else
    echo "missing system packages: ${need[*]} (install them with your package manager)" >&2
    exit 1
fi
